/**
 * Chat sessions: create, list, get, update, delete, branch and merge
 * (protocol.md 2.12). Every method takes the caller's statement `Session`,
 * so storage goes through the same gate and write path as any record write.
 */
import { InvalidInput } from '../../errors.js';
import type { Session } from '../../engine/index.js';
import type { ProviderDirectory } from '../providers/provider.js';
import type { AgentService } from '../../workflow/index.js';
import { ZERO_USAGE, type NewMessage } from '../messages/message-record.js';
import { branchMessages, mergedMessages, summarizedSources, type MergeSource } from './merge-strategies.js';
import type { MergeRequest } from '../messages/message-request.js';
import { parseCreateRequest, parseUpdateRequest, type ChatSession, type CollectionConfig, type SessionSettings } from './chat-session-config.js';
import { emptyChatResponse, sessionResponse, sessionToWire, type ChatResponse } from './chat-session-wire.js';
import type { ChatStore } from './chat-store.js';
import { summarize } from '../messages/summarize.js';

export interface ListOptions {
  readonly limit?: number;
  readonly skip?: number;
  readonly sort?: 'asc' | 'desc';
}

export class SessionService {
  constructor(private readonly store: ChatStore, private readonly providers: ProviderDirectory, private readonly agents?: AgentService) {}

  /**
   * POST /api/chat: a new session (a branch when the body names `parent_id`).
   * With `agent_id`, the agent's system prompt, model and provider fill what
   * the request does not give (404 for an unknown agent). 400 classified when
   * the provider is not configured.
   */
  async create(db: Session, body: Record<string, unknown>): Promise<ChatResponse> {
    if (body.parent_id !== undefined && body.parent_id !== null) return this.branch(db, body);
    const { create } = parseCreateRequest(this.withAgent(db, body));
    this.providers.get(create.settings.llm_provider);
    const session = await this.store.createSession(db, create.settings, create.bypassRipple);
    return emptyChatResponse(session.id);
  }

  /**
   * POST /api/chat/branch: a new session that starts with the parent's
   * messages up to `branch_point_idx` and inherits every setting the body
   * does not give.
   */
  async branch(db: Session, body: Record<string, unknown>): Promise<ChatResponse> {
    const { create, given } = parseCreateRequest(body, false);
    if (!create.settings.parent_id) throw new InvalidInput("'parent_id' is required to branch a session");
    const parent = this.store.session(db, create.settings.parent_id);
    const copied = branchMessages(await this.store.messages(db, parent.id), create.settings.branch_point_idx);
    const inherit = <K extends keyof SessionSettings>(k: K): SessionSettings[K] => (given.has(k) ? create.settings[k] : parent[k]);
    const settings: SessionSettings = {
      ...create.settings,
      llm_provider: inherit('llm_provider'), llm_model: inherit('llm_model'), collections: inherit('collections'),
      system_prompt: inherit('system_prompt'), agent_id: inherit('agent_id'), max_context_messages: inherit('max_context_messages'),
      max_tokens: inherit('max_tokens'), temperature: inherit('temperature'), tool_config: inherit('tool_config'), memory: inherit('memory'),
    };
    this.providers.get(settings.llm_provider);
    const session = await this.store.createSession(db, settings, create.bypassRipple);
    await this.copyInto(db, session.id, copied, create.bypassRipple);
    return emptyChatResponse(session.id);
  }

  /** The request with its agent's settings under the members it leaves out (or sends as null). */
  private withAgent(db: Session, body: Record<string, unknown>): Record<string, unknown> {
    const agentId = body.agent_id;
    if (typeof agentId !== 'string' || !this.agents) return body;
    const given = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== null));
    return { ...this.agents.sessionDefaults(db, agentId), ...given };
  }

  /** GET /api/chat: by creation time, newest first unless `sort=asc`. */
  async list(db: Session, opts: ListOptions): Promise<Record<string, unknown>> {
    const counts = await this.store.messageCounts(db);
    const dir = opts.sort === 'asc' ? 1 : -1;
    const all = (await this.store.sessions(db)).sort((a, b) => dir * (a.created_at - b.created_at) || (a.id < b.id ? -1 : 1));
    const skip = opts.skip ?? 0;
    const page = all.slice(skip, opts.limit === undefined ? undefined : skip + opts.limit);
    return {
      sessions: page.map((s) => sessionToWire(s, counts.get(s.id) ?? 0)),
      total: all.length, returned: page.length,
      ...(opts.skip !== undefined ? { skip: opts.skip } : {}), ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    };
  }

  async get(db: Session, chatId: string) {
    const s = this.store.session(db, chatId);
    return sessionResponse(s, (await this.store.messages(db, chatId)).length);
  }

  /** The session as stored (for the gate's permission checks on its collections). */
  session(db: Session, chatId: string): ChatSession {
    return this.store.session(db, chatId);
  }

  async update(db: Session, chatId: string, body: Record<string, unknown>) {
    const { patch, bypassRipple } = parseUpdateRequest(body);
    const next = await this.store.replaceSession(db, { ...this.store.session(db, chatId), ...patch }, bypassRipple);
    return sessionResponse(next, (await this.store.messages(db, chatId)).length);
  }

  async delete(db: Session, chatId: string): Promise<Record<string, unknown>> {
    const messages = await this.store.deleteSession(db, chatId);
    return { status: 'deleted', chat_id: chatId, messages_deleted: messages };
  }

  /**
   * POST /api/chat/merge: the sources' messages are copied into the target
   * per the strategy (merge-strategies.ts). Without a target, a new session
   * is made from the first source's settings (provider and model from the
   * request when given), reading the union of the sources' collections.
   */
  async merge(db: Session, req: MergeRequest, signal?: AbortSignal) {
    const sourceIds = req.sources.filter((id) => id !== req.target);
    if (sourceIds.length === 0) throw new InvalidInput('A merge needs at least one source session other than the target');
    const sources: MergeSource[] = [];
    for (const id of sourceIds) sources.push({ chatId: this.store.session(db, id).id, messages: await this.store.messages(db, id) });
    const existing = req.target ? this.store.session(db, req.target) : undefined;
    const settings = existing ?? this.mergedSettings(db, sourceIds, req);
    // Checked before anything is written: a new session's provider, and the one that writes summaries.
    if (!existing || req.strategy === 'Summarized') this.providers.get(settings.llm_provider);
    const copies: NewMessage[] = req.strategy === 'Summarized'
      ? await this.summaries(settings, sources, signal)
      : mergedMessages(req.strategy, sources);
    const target = existing ?? await this.store.createSession(db, settings, req.bypassRipple);
    await this.copyInto(db, target.id, copies, req.bypassRipple);
    await this.store.touchSession(db, target.id, req.bypassRipple);
    return sessionResponse(this.store.session(db, target.id), (await this.store.messages(db, target.id)).length);
  }

  /** One summary message per source with live messages, written by the target's provider. */
  private async summaries(settings: SessionSettings, sources: readonly MergeSource[], signal?: AbortSignal): Promise<NewMessage[]> {
    const provider = this.providers.get(settings.llm_provider);
    const model = settings.llm_model ?? undefined;
    const out: NewMessage[] = [];
    for (const s of summarizedSources(sources)) {
      const text = await summarize(provider, s.messages, model, signal);
      out.push({ ...summaryMessage('', text, 0), llm_provider: provider.id, ...(model ? { llm_model: model } : {}) });
    }
    return out;
  }

  private mergedSettings(db: Session, sourceIds: readonly string[], req: MergeRequest): SessionSettings {
    const sources = sourceIds.map((id) => this.store.session(db, id));
    const first = sources[0]!;
    const collections = new Map<string, CollectionConfig>();
    for (const s of sources) for (const c of s.collections) if (!collections.has(c.collection_name)) collections.set(c.collection_name, c);
    return {
      ...first, llm_provider: req.provider ?? first.llm_provider, llm_model: req.model ?? (req.provider ? null : first.llm_model),
      collections: [...collections.values()], title: null, parent_id: null, branch_point_idx: null,
    };
  }

  /** Copies messages into `chatId` in the given order, with fresh ids and creation times. */
  private async copyInto(db: Session, chatId: string, messages: ReadonlyArray<NewMessage & { id?: string }>, bypassRipple: boolean): Promise<void> {
    const copies = messages.map(({ id: _id, ...m }): NewMessage => {
      const at = this.store.stamp();
      return { ...m, chat_id: chatId, created_at: at, updated_at: at };
    });
    await this.store.addMessages(db, copies, bypassRipple);
  }
}

/** A synthetic summary message (compaction, Summarized merge): replayed ahead of the history, never as a turn. */
export function summaryMessage(chatId: string, content: string, at: number): NewMessage {
  return {
    chat_id: chatId, role: 'system', content, created_at: at, updated_at: at, context_snippets: [], token_usage: ZERO_USAGE,
    forgotten: false, summary: true,
  };
}
