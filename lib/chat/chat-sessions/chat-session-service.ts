/**
 * Chat sessions: create, list, get, update, delete, branch and merge
 * (protocol.md 2.12). Every method takes the caller's statement `Session`,
 * so storage goes through the same gate and write path as any record write.
 */
import { InvalidInput } from '../../errors.js';
import type { Session } from '../../engine/index.js';
import type { AgentService } from '../../workflow/index.js';
import type { ProviderDirectory } from '../providers/provider.js';
import { summaryMessage, type NewMessage } from '../messages/message-record.js';
import type { MergeRequest } from '../messages/message-request.js';
import { summarize } from '../messages/summarize.js';
import { branchMessages, mergedMessages, summarizedSources, type MergeSource } from './merge-strategies.js';
import {
  parseCreateRequest,
  parseUpdateRequest,
  type ChatSession,
  type ChatSessionSettings,
  type CollectionConfig,
} from './chat-session-config.js';
import { emptyChatResponse, chatSessionResponse, chatSessionToWire, type ChatResponse } from './chat-session-wire.js';
import type { ChatStore } from './chat-store.js';

export interface ListOptions {
  readonly limit?: number;
  readonly skip?: number;
  readonly sort?: 'asc' | 'desc';
}

export class ChatSessionService {
  constructor(
    private readonly store: ChatStore,
    private readonly providers: ProviderDirectory,
    private readonly agents?: AgentService,
  ) {}

  /**
   * POST /api/chat: a new chat session (a branch when the body names
   * `parent_id`). With `agent_id`, the agent's system prompt, model and
   * provider fill what the request does not give (404 for an unknown agent).
   * 400 classified when the provider is not configured.
   */
  async create(session: Session, body: Record<string, unknown>): Promise<ChatResponse> {
    if (body.parent_id !== undefined && body.parent_id !== null) return this.branch(session, body);
    const { create } = parseCreateRequest(this.withAgent(session, body));
    this.providers.get(create.settings.llm_provider);
    const chatSession = await this.store.createChatSession(session, create.settings, create.bypassRipple);
    return emptyChatResponse(chatSession.id);
  }

  /**
   * POST /api/chat/branch: a new chat session that starts with the parent's
   * messages up to `branch_point_idx` and inherits every setting the body
   * does not give.
   */
  async branch(session: Session, body: Record<string, unknown>): Promise<ChatResponse> {
    const { create, given } = parseCreateRequest(body, false);
    if (!create.settings.parent_id) throw new InvalidInput("'parent_id' is required to branch a session");
    const parent = this.store.chatSession(session, create.settings.parent_id);
    const copied = branchMessages(await this.store.messages(session, parent.id), create.settings.branch_point_idx);
    const inherit = <K extends keyof ChatSessionSettings>(name: K): ChatSessionSettings[K] =>
      given.has(name) ? create.settings[name] : parent[name];
    const settings: ChatSessionSettings = {
      ...create.settings,
      llm_provider: inherit('llm_provider'),
      llm_model: inherit('llm_model'),
      collections: inherit('collections'),
      system_prompt: inherit('system_prompt'),
      agent_id: inherit('agent_id'),
      max_context_messages: inherit('max_context_messages'),
      max_tokens: inherit('max_tokens'),
      temperature: inherit('temperature'),
      tool_config: inherit('tool_config'),
      memory: inherit('memory'),
    };
    this.providers.get(settings.llm_provider);
    const chatSession = await this.store.createChatSession(session, settings, create.bypassRipple);
    await this.copyInto(session, chatSession.id, copied, create.bypassRipple);
    return emptyChatResponse(chatSession.id);
  }

  /** The request with its agent's settings under the members it leaves out (or sends as null). */
  private withAgent(session: Session, body: Record<string, unknown>): Record<string, unknown> {
    const agentId = body.agent_id;
    if (typeof agentId !== 'string' || !this.agents) return body;
    const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined && value !== null));
    return { ...this.agents.chatSessionDefaults(session, agentId), ...given };
  }

  /** GET /api/chat: by creation time, newest first unless `sort=asc`. */
  async list(session: Session, opts: ListOptions): Promise<Record<string, unknown>> {
    const counts = await this.store.messageCounts(session);
    const direction = opts.sort === 'asc' ? 1 : -1;
    const all = (await this.store.chatSessions(session)).sort(
      (a, b) => direction * (a.created_at - b.created_at) || (a.id < b.id ? -1 : 1),
    );
    const skip = opts.skip ?? 0;
    const page = all.slice(skip, opts.limit === undefined ? undefined : skip + opts.limit);
    return {
      sessions: page.map((chatSession) => chatSessionToWire(chatSession, counts.get(chatSession.id) ?? 0)),
      total: all.length,
      returned: page.length,
      ...(opts.skip !== undefined ? { skip: opts.skip } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    };
  }

  async get(session: Session, chatId: string) {
    const chatSession = this.store.chatSession(session, chatId);
    return chatSessionResponse(chatSession, (await this.store.messages(session, chatId)).length);
  }

  /** The chat session as stored (for the gate's permission checks on its collections). */
  chatSession(session: Session, chatId: string): ChatSession {
    return this.store.chatSession(session, chatId);
  }

  async update(session: Session, chatId: string, body: Record<string, unknown>) {
    const { patch, bypassRipple } = parseUpdateRequest(body);
    const next = await this.store.replaceChatSession(
      session,
      { ...this.store.chatSession(session, chatId), ...patch },
      bypassRipple,
    );
    return chatSessionResponse(next, (await this.store.messages(session, chatId)).length);
  }

  async delete(session: Session, chatId: string): Promise<Record<string, unknown>> {
    const messages = await this.store.deleteChatSession(session, chatId);
    return { status: 'deleted', chat_id: chatId, messages_deleted: messages };
  }

  /**
   * POST /api/chat/merge: the sources' messages are copied into the target
   * per the strategy (merge-strategies.ts). Without a target, a new chat
   * session is made from the first source's settings (provider and model
   * from the request when given), reading the union of the sources'
   * collections.
   */
  async merge(session: Session, req: MergeRequest, signal?: AbortSignal) {
    const sourceIds = req.sources.filter((id) => id !== req.target);
    if (sourceIds.length === 0)
      throw new InvalidInput('A merge needs at least one source session other than the target');
    const sources: MergeSource[] = [];
    for (const id of sourceIds) {
      sources.push({
        chatId: this.store.chatSession(session, id).id,
        messages: await this.store.messages(session, id),
      });
    }
    const existing = req.target ? this.store.chatSession(session, req.target) : undefined;
    const settings = existing ?? this.mergedSettings(session, sourceIds, req);
    // Checked before anything is written: a new chat session's provider, and the one that writes summaries.
    if (!existing || req.strategy === 'Summarized') this.providers.get(settings.llm_provider);
    const copies: NewMessage[] =
      req.strategy === 'Summarized'
        ? await this.summaries(settings, sources, signal)
        : mergedMessages(req.strategy, sources);
    const target = existing ?? (await this.store.createChatSession(session, settings, req.bypassRipple));
    await this.copyInto(session, target.id, copies, req.bypassRipple);
    await this.store.touchChatSession(session, target.id, req.bypassRipple);
    return chatSessionResponse(
      this.store.chatSession(session, target.id),
      (await this.store.messages(session, target.id)).length,
    );
  }

  /** One summary message per source with live messages, written by the target's provider. */
  private async summaries(
    settings: ChatSessionSettings,
    sources: readonly MergeSource[],
    signal?: AbortSignal,
  ): Promise<NewMessage[]> {
    const provider = this.providers.get(settings.llm_provider);
    const model = settings.llm_model ?? undefined;
    const out: NewMessage[] = [];
    for (const source of summarizedSources(sources)) {
      const text = await summarize(provider, source.messages, model, signal);
      out.push({ ...summaryMessage('', text, 0), llm_provider: provider.id, ...(model ? { llm_model: model } : {}) });
    }
    return out;
  }

  private mergedSettings(session: Session, sourceIds: readonly string[], req: MergeRequest): ChatSessionSettings {
    const sources = sourceIds.map((id) => this.store.chatSession(session, id));
    const first = sources[0]!;
    const collections = new Map<string, CollectionConfig>();
    for (const source of sources) {
      for (const config of source.collections)
        if (!collections.has(config.collection_name)) collections.set(config.collection_name, config);
    }
    return {
      ...first,
      llm_provider: req.provider ?? first.llm_provider,
      llm_model: req.model ?? (req.provider ? null : first.llm_model),
      collections: [...collections.values()],
      title: null,
      parent_id: null,
      branch_point_idx: null,
    };
  }

  /** Copies messages into `chatId` in the given order, with fresh ids and creation times. */
  private async copyInto(
    session: Session,
    chatId: string,
    messages: ReadonlyArray<NewMessage & { id?: string }>,
    bypassRipple: boolean,
  ): Promise<void> {
    const copies = messages.map(({ id: _id, ...message }): NewMessage => {
      const at = this.store.stamp();
      return { ...message, chat_id: chatId, created_at: at, updated_at: at };
    });
    await this.store.addMessages(session, copies, bypassRipple);
  }
}
