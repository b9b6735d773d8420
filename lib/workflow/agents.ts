/**
 * Agents (protocol.md 2.13): named configurations (`name`, unique;
 * `system_prompt`, `model` or `llm_model`, `provider` or `llm_provider`,
 * `deployment_id`, anything else), found by id, by name or by deployment.
 * A chat session created with `agent_id` takes the agent's system prompt,
 * model and provider unless its request gives them (`chatSessionDefaults`).
 * An agent's `status` is free-form (default `active`): agents have no lifecycle.
 */
import { Conflict, InvalidInput, NotFound } from '../errors.js';
import type { Session } from '../engine/index.js';
import { clientMembers, DocumentStore, type Doc } from './document-store.js';

export const AGENTS_COLLECTION = '__chat_agents';

/** What a chat session takes from its agent. */
export interface AgentDefaults {
  readonly system_prompt?: string;
  readonly llm_model?: string;
  readonly llm_provider?: string;
}

export class AgentService {
  readonly store: DocumentStore;
  /** Creates and renames run one at a time, so two agents can never get one name. */
  private naming: Promise<unknown> = Promise.resolve();

  constructor(now: () => number) {
    this.store = new DocumentStore(AGENTS_COLLECTION, 'agent', now);
  }

  async list(session: Session): Promise<{ agents: Doc[] }> {
    return { agents: await this.store.list(session) };
  }

  get(session: Session, id: string): Doc {
    return this.store.get(session, id);
  }

  async byName(session: Session, name: string): Promise<Doc> {
    const found = (await this.store.list(session)).find((a) => a.name === name);
    if (!found) throw new NotFound(`Agent named '${name}' not found`);
    return found;
  }

  async byDeployment(session: Session, deploymentId: string): Promise<{ agents: Doc[] }> {
    return { agents: (await this.store.list(session)).filter((a) => a.deployment_id === deploymentId) };
  }

  create(session: Session, body: Record<string, unknown>): Promise<Doc> {
    const members = clientMembers(body, [], 'agent');
    const name = agentName(members.name);
    checkStatus(members);
    return this.serially(async () => {
      await this.checkUnique(session, name);
      return this.store.create(session, { status: 'active', ...members });
    });
  }

  update(session: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    checkStatus(body);
    return this.serially(async () => {
      const names = new Set((await this.store.list(session)).map((a) => a.name));
      return this.store.change(session, id, (agent) => {
        const members = clientMembers(body, [], 'agent', agent);
        if (Object.hasOwn(members, 'name') && members.name !== agent.name) uniqueName(names, agentName(members.name));
        return { ...agent, ...members };
      });
    });
  }

  delete(session: Session, id: string) {
    return this.store.delete(session, id);
  }

  /** The chat session settings agent `id` supplies (404 when there is no such agent). */
  chatSessionDefaults(session: Session, id: string): AgentDefaults {
    const agent = this.store.get(session, id);
    const text = (...names: string[]) => {
      for (const name of names) if (typeof agent[name] === 'string' && agent[name] !== '') return agent[name] as string;
      return undefined;
    };
    const prompt = text('system_prompt'),
      model = text('llm_model', 'model'),
      provider = text('llm_provider', 'provider');
    return {
      ...(prompt ? { system_prompt: prompt } : {}),
      ...(model ? { llm_model: model } : {}),
      ...(provider ? { llm_provider: provider } : {}),
    };
  }

  private async checkUnique(session: Session, name: string): Promise<void> {
    uniqueName(new Set((await this.store.list(session)).map((a) => a.name)), name);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.naming.catch(() => {}).then(work);
    this.naming = run;
    return run;
  }
}

function agentName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '')
    throw new InvalidInput("An agent needs a 'name' (a non-empty string)");
  return name;
}

function checkStatus(body: Record<string, unknown>): void {
  if (body.status !== undefined && typeof body.status !== 'string') throw new InvalidInput("'status' must be a string");
}

/** 409 when an agent already has `name` (agent names are unique). */
function uniqueName(names: ReadonlySet<unknown>, name: string): void {
  if (names.has(name)) throw new Conflict(`An agent named '${name}' already exists`);
}
