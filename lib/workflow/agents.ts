/**
 * Agents (protocol.md 2.13): named configurations (`name`, unique;
 * `system_prompt`, `model` or `llm_model`, `provider` or `llm_provider`,
 * `deployment_id`, anything else), found by id, by name or by deployment.
 * A chat session created with `agent_id` takes the agent's system prompt,
 * model and provider unless its request gives them (`sessionDefaults`).
 * An agent's `status` is free-form (default `active`): agents have no lifecycle.
 */
import { Conflict, InvalidInput, NotFound } from '../errors.js';
import type { Session } from '../engine/index.js';
import { clientMembers, DocumentStore, type Doc } from './document-store.js';

export const AGENTS_COLLECTION = '__chat_agents';

/** What a session takes from its agent. */
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

  async list(db: Session): Promise<{ agents: Doc[] }> {
    return { agents: await this.store.list(db) };
  }

  get(db: Session, id: string): Doc {
    return this.store.get(db, id);
  }

  async byName(db: Session, name: string): Promise<Doc> {
    const found = (await this.store.list(db)).find((a) => a.name === name);
    if (!found) throw new NotFound(`Agent named '${name}' not found`);
    return found;
  }

  async byDeployment(db: Session, deploymentId: string): Promise<{ agents: Doc[] }> {
    return { agents: (await this.store.list(db)).filter((a) => a.deployment_id === deploymentId) };
  }

  create(db: Session, body: Record<string, unknown>): Promise<Doc> {
    const members = clientMembers(body, [], 'agent');
    const name = agentName(members.name);
    checkStatus(members);
    return this.serially(async () => {
      await this.checkUnique(db, name);
      return this.store.create(db, { status: 'active', ...members });
    });
  }

  update(db: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    checkStatus(body);
    return this.serially(async () => {
      const names = new Set((await this.store.list(db)).map((a) => a.name));
      return this.store.change(db, id, (a) => {
        const members = clientMembers(body, [], 'agent', a);
        if (Object.hasOwn(members, 'name') && members.name !== a.name) uniqueName(names, agentName(members.name));
        return { ...a, ...members };
      });
    });
  }

  delete(db: Session, id: string) {
    return this.store.delete(db, id);
  }

  /** The session settings agent `id` supplies (404 when there is no such agent). */
  sessionDefaults(db: Session, id: string): AgentDefaults {
    const a = this.store.get(db, id);
    const text = (...names: string[]) => {
      for (const n of names) if (typeof a[n] === 'string' && a[n] !== '') return a[n] as string;
      return undefined;
    };
    const prompt = text('system_prompt'), model = text('llm_model', 'model'), provider = text('llm_provider', 'provider');
    return { ...(prompt ? { system_prompt: prompt } : {}), ...(model ? { llm_model: model } : {}), ...(provider ? { llm_provider: provider } : {}) };
  }

  private async checkUnique(db: Session, name: string): Promise<void> {
    uniqueName(new Set((await this.store.list(db)).map((a) => a.name)), name);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.naming.catch(() => {}).then(work);
    this.naming = run;
    return run;
  }
}

function agentName(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw new InvalidInput("An agent needs a 'name' (a non-empty string)");
  return v;
}

function checkStatus(body: Record<string, unknown>): void {
  if (body.status !== undefined && typeof body.status !== 'string') throw new InvalidInput("'status' must be a string");
}

/** 409 when an agent already has `name` (agent names are unique). */
function uniqueName(names: ReadonlySet<unknown>, name: string): void {
  if (names.has(name)) throw new Conflict(`An agent named '${name}' already exists`);
}
