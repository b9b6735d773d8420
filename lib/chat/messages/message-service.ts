/**
 * Messages of a session: send (a turn: retrieve, prompt, provider, store the
 * user's message and the reply), list, get, edit, delete, forget,
 * regenerate, compact, and client tool results (protocol.md 2.12).
 * Read methods return stored records (`Fields`): the transport renders them
 * typed or bare per `use_typed_values`.
 */
import { InvalidInput, ProviderFailed } from '../../errors.js';
import type { Completion } from '../providers/provider.js';
import type { Fields, Session } from '../../engine/index.js';
import type { ChatStore } from '../chat-sessions/chat-store.js';
import { planCompaction } from './compaction.js';
import { ZERO_USAGE, type ChatMessageRecord } from './message-record.js';
import type { MessageRequest, ToolResult } from './message-request.js';
import { DEFAULT_CONTEXT_MESSAGES } from '../chat-sessions/names.js';
import type { ChatSession } from '../chat-sessions/chat-session-config.js';
import { summaryMessage, type ListOptions } from '../chat-sessions/chat-session-service.js';
import type { ChatResponse } from '../chat-sessions/chat-session-wire.js';
import { summarize } from './summarize.js';
import { prepareTurn, runTurn, turnResult, type PreparedTurn, type TurnDeps, type TurnInput, type TurnResult } from './turn.js';
import { planTools, runToolTurn, type ToolEnv, type ToolPlan, type ToolTurnEvent } from './tool-turn.js';
import type { ClientToolBroker } from '../tools/client-tool-broker.js';
import { NO_MESSAGE_TOOLS } from '../tools/tool-config.js';

/**
 * An event of a streamed turn: pieces of the reply and tool progress as they
 * happen, then the stored exchange's ChatResponse (with the turn's
 * tool_call_history when tools ran).
 */
export type TurnEvent =
  | Exclude<ToolTurnEvent, { kind: 'completion' }>
  | { readonly kind: 'done'; readonly response: ChatResponse };

export interface CompactResult {
  readonly folded: number;
  readonly kept_recent: number;
  readonly summary_chars: number;
  readonly summary_message_id: string | null;
  readonly already_compact: boolean;
}

export class MessageService {
  constructor(private readonly store: ChatStore, private readonly deps: TurnDeps, private readonly broker: ClientToolBroker) {}

  /**
   * POST /api/chat/{id}/messages. Stores nothing when the provider fails.
   * Server tools run when `tools` is given and the turn enables them; client
   * tools need a stream to reach the client, so they are not offered here.
   */
  async send(db: Session, chatId: string, req: MessageRequest, signal?: AbortSignal, tools?: ToolEnv): Promise<ChatResponse> {
    const started = performance.now();
    const { session, input } = await this.begin(db, chatId, req, signal);
    const prepared = await prepareTurn(this.deps, db, input);
    const plan = planTools(session.tool_config, req.tools ?? NO_MESSAGE_TOOLS, tools, false);
    let turn: TurnResult | undefined;
    for await (const e of this.turnEvents(prepared, session, signal, plan, false)) {
      if (e.kind === 'completion') turn = { ...turnResult(prepared, e.completion), ...(e.history ? { toolHistory: e.history } : {}) };
    }
    return this.finish(db, session, req, turn!, started);
  }

  /**
   * Opens a streamed turn: the session, history and prompt are checked and
   * built before it returns (an unknown chat or provider fails here, before
   * any stream opens). The events are token and tool events as they happen,
   * then one `done` with the ChatResponse once the exchange is stored. A
   * failure or an abort (`signal`: the client went away or cancelled) before
   * the end stores nothing.
   */
  async openStream(db: Session, chatId: string, req: MessageRequest, signal?: AbortSignal, tools?: ToolEnv): Promise<AsyncGenerator<TurnEvent>> {
    const started = performance.now();
    const { session, input } = await this.begin(db, chatId, req, signal);
    const prepared = await prepareTurn(this.deps, db, input);
    const plan = planTools(session.tool_config, req.tools ?? NO_MESSAGE_TOOLS, tools, true);
    return this.streamed(db, session, req, prepared, started, signal, plan);
  }

  /** openStream and its events in one generator (the session is checked on the first pull). */
  async *sendStream(db: Session, chatId: string, req: MessageRequest, signal?: AbortSignal, tools?: ToolEnv): AsyncGenerator<TurnEvent> {
    yield* await this.openStream(db, chatId, req, signal, tools);
  }

  private async *streamed(db: Session, session: ChatSession, req: MessageRequest, prepared: PreparedTurn, started: number,
    signal: AbortSignal | undefined, plan: ToolPlan | undefined): AsyncGenerator<TurnEvent> {
    let turn: TurnResult | undefined;
    for await (const e of this.turnEvents(prepared, session, signal, plan, true)) {
      if (e.kind === 'completion') turn = { ...turnResult(prepared, e.completion), ...(e.history ? { toolHistory: e.history } : {}) };
      else yield e;
    }
    signal?.throwIfAborted();
    yield { kind: 'done', response: await this.finish(db, session, req, turn!, started) };
  }

  /** The provider's answer, through the tool loop when the turn offers tools. */
  private async *turnEvents(p: PreparedTurn, session: ChatSession, signal: AbortSignal | undefined, plan: ToolPlan | undefined,
    streamed: boolean): AsyncGenerator<ToolTurnEvent> {
    if (plan) {
      yield* runToolTurn({ provider: p.provider, request: p.request, plan, broker: this.broker, chatId: session.id, streamed, ...(signal ? { signal } : {}) });
      return;
    }
    if (!streamed) {
      yield { kind: 'completion', completion: await p.provider.complete(p.request, signal) };
      return;
    }
    let completion: Completion | undefined;
    for await (const chunk of p.provider.stream(p.request, signal)) {
      if (chunk.kind === 'token') yield { kind: 'token', text: chunk.text };
      else completion = chunk.completion;
    }
    if (!completion) throw new ProviderFailed(`${p.provider.id} ended its stream without a completion`, 'provider_unavailable', p.provider.id, null);
    yield { kind: 'completion', completion };
  }

  private async begin(db: Session, chatId: string, req: MessageRequest, signal?: AbortSignal): Promise<{ session: ChatSession; input: TurnInput }> {
    const session = this.store.session(db, chatId);
    if (req.forceSummarize) await this.compact(db, chatId, undefined, signal);
    const history = await this.store.messages(db, chatId);
    return { session, input: { session, history, userText: req.message, ...(req.model ? { model: req.model } : {}), signal } };
  }

  /** Stores the user's message and the reply as one batch (the session's updated_at joins the same group commit). */
  private async finish(db: Session, session: ChatSession, req: MessageRequest, turn: TurnResult, started: number): Promise<ChatResponse> {
    const asked = this.store.stamp();
    const user = { chat_id: session.id, role: 'user' as const, content: req.message, created_at: asked, updated_at: asked, context_snippets: [],
      token_usage: ZERO_USAGE, forgotten: false, summary: false };
    const [added] = await Promise.all([
      this.store.addMessages(db, [user, this.reply(session, turn)], req.bypassRipple),
      this.store.touchSession(db, session.id, req.bypassRipple),
    ]);
    return this.response(session.id, added[1]!.id, turn, started);
  }

  private reply(session: ChatSession, turn: TurnResult) {
    const at = this.store.stamp();
    return {
      chat_id: session.id, role: 'assistant' as const, content: turn.completion.content, created_at: at, updated_at: at,
      context_snippets: turn.snippets, token_usage: turn.completion.usage, llm_provider: session.llm_provider, llm_model: turn.model,
      ...(turn.toolHistory ? { tool_call_history: turn.toolHistory as unknown as Record<string, unknown> } : {}),
      forgotten: false, summary: false,
    };
  }

  private response(chatId: string, messageId: string, turn: TurnResult, started: number): ChatResponse {
    return {
      chat_id: chatId, message_id: messageId, responses: [turn.completion.content], context_snippets: turn.snippets,
      execution_time_ms: Math.round(performance.now() - started), token_usage: turn.completion.usage,
      ...(turn.toolHistory ? { tool_call_history: turn.toolHistory } : {}),
    };
  }

  /** GET /api/chat/{id}/messages: `{messages, total, skip, limit, returned}` (records for the transport to render). */
  async list(db: Session, chatId: string, opts: ListOptions): Promise<{ messages: Fields[]; total: number; skip: number; limit: number | null; returned: number }> {
    this.store.session(db, chatId);
    const all = await this.store.messageRecords(db, chatId);
    if (opts.sort === 'desc') all.reverse();
    const skip = opts.skip ?? 0;
    const page = all.slice(skip, opts.limit === undefined ? undefined : skip + opts.limit);
    return { messages: page, total: all.length, skip, limit: opts.limit ?? null, returned: page.length };
  }

  get(db: Session, chatId: string, messageId: string): Fields {
    this.store.session(db, chatId);
    this.store.message(db, chatId, messageId);
    return this.store.messageFields(db, messageId);
  }

  async edit(db: Session, chatId: string, messageId: string, content: string): Promise<Fields> {
    this.get(db, chatId, messageId);
    await this.store.updateMessage(db, messageId, { content: { type: 'String', value: content } });
    return this.store.messageFields(db, messageId);
  }

  async setForgotten(db: Session, chatId: string, messageId: string, forgotten: boolean): Promise<Fields> {
    this.get(db, chatId, messageId);
    await this.store.updateMessage(db, messageId, { forgotten });
    return this.store.messageFields(db, messageId);
  }

  async delete(db: Session, chatId: string, messageId: string): Promise<Record<string, unknown>> {
    this.get(db, chatId, messageId);
    await this.store.deleteMessage(db, messageId);
    return { status: 'deleted', chat_id: chatId, message_id: messageId };
  }

  /**
   * POST .../messages/{id}/regenerate: answers the user message before this
   * assistant message again, with the history before that user message, and
   * replaces the reply in place (same id).
   */
  async regenerate(db: Session, chatId: string, messageId: string, signal?: AbortSignal): Promise<ChatResponse> {
    const started = performance.now();
    const session = this.store.session(db, chatId);
    const target = this.store.message(db, chatId, messageId);
    if (target.role !== 'assistant') throw new InvalidInput(`Message '${messageId}' is a ${target.role} message; only an assistant message can be regenerated`);
    const messages = await this.store.messages(db, chatId);
    const at = messages.findIndex((m) => m.id === messageId);
    const askedAt = findLastIndex(messages, at, (m) => m.role === 'user');
    if (askedAt < 0) throw new InvalidInput(`Message '${messageId}' answers no user message, so there is nothing to regenerate from`);
    const turn = await runTurn(this.deps, db, { session, history: messages.slice(0, askedAt), userText: messages[askedAt]!.content, signal });
    await this.store.updateMessage(db, messageId, {
      content: { type: 'String', value: turn.completion.content }, context_snippets: { type: 'Array', value: turn.snippets },
      token_usage: { type: 'Object', value: turn.completion.usage }, llm_provider: { type: 'String', value: session.llm_provider },
      llm_model: { type: 'String', value: turn.model },
    });
    await this.store.touchSession(db, chatId, false);
    return this.response(chatId, messageId, turn, started);
  }

  /**
   * POST /api/chat/{id}/compact: folds all but the most recent `keepRecent`
   * live messages (default: the session's max_context_messages, else 50) and
   * any earlier summary into one summary message written by the session's
   * provider, and marks what was folded forgotten.
   */
  async compact(db: Session, chatId: string, keepRecent: number | undefined, signal?: AbortSignal): Promise<CompactResult> {
    const session = this.store.session(db, chatId);
    const keep = keepRecent ?? session.max_context_messages ?? DEFAULT_CONTEXT_MESSAGES;
    const plan = planCompaction(await this.store.messages(db, chatId), keep);
    if (plan.fold.length === 0) {
      return { folded: 0, kept_recent: plan.kept.length, summary_chars: 0, summary_message_id: null, already_compact: true };
    }
    const folded: ChatMessageRecord[] = [...plan.summaries, ...plan.fold];
    const provider = this.deps.providers.get(session.llm_provider);
    const text = await summarize(provider, folded, session.llm_model ?? undefined, signal);
    const [summary] = await this.store.addMessages(db, [{
      ...summaryMessage(chatId, text, this.store.stamp()), llm_provider: provider.id, ...(session.llm_model ? { llm_model: session.llm_model } : {}),
    }], false);
    await this.store.forget(db, folded.map((m) => m.id));
    return { folded: folded.length, kept_recent: plan.kept.length, summary_chars: text.length, summary_message_id: summary!.id, already_compact: false };
  }

  /**
   * POST /api/chat/{id}/tool-result (and WebSocket ClientToolResult): a
   * client tool's answer unblocks the streamed turn waiting on it, a
   * keep-alive restarts its timeout. `delivered` is false when no turn waits
   * on that call (unknown, already answered, or timed out).
   */
  toolResult(db: Session, chatId: string, result: ToolResult): Record<string, unknown> {
    this.store.session(db, chatId);
    const delivered = this.broker.deliver(chatId, result);
    return { status: 'accepted', chat_id: chatId, call_id: result.callId, delivered };
  }
}

function findLastIndex<T>(items: readonly T[], before: number, test: (x: T) => boolean): number {
  for (let i = before - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}
