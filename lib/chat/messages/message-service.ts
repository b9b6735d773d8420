/**
 * Messages of a chat session: send (a turn: retrieve, prompt, provider,
 * store the user's message and the reply), list, get, edit, delete, forget,
 * regenerate, compact, and client tool results (protocol.md 2.12).
 * Read methods return stored records (`Fields`): the transport renders them
 * typed or bare per `use_typed_values`.
 */
import { InvalidInput, ProviderFailed } from '../../errors.js';
import type { Fields, Session } from '../../engine/index.js';
import type { Completion } from '../providers/provider.js';
import type { ClientToolBroker } from '../tools/client-tool-broker.js';
import { NO_MESSAGE_TOOLS } from '../tools/tool-config.js';
import type { ChatStore } from '../chat-sessions/chat-store.js';
import { DEFAULT_CONTEXT_MESSAGES } from '../chat-sessions/names.js';
import type { ChatSession } from '../chat-sessions/chat-session-config.js';
import type { ListOptions } from '../chat-sessions/chat-session-service.js';
import type { ChatResponse } from '../chat-sessions/chat-session-wire.js';
import { planCompaction } from './compaction.js';
import { summaryMessage, ZERO_USAGE, type ChatMessageRecord } from './message-record.js';
import type { MessageRequest, ToolResult } from './message-request.js';
import { summarize } from './summarize.js';
import {
  prepareTurn,
  runTurn,
  turnResult,
  type PreparedTurn,
  type TurnDeps,
  type TurnInput,
  type TurnResult,
} from './turn.js';
import { planTools, runToolTurn, type ToolEnv, type ToolPlan, type ToolTurnEvent } from './tool-turn.js';

/**
 * An event of a streamed turn: pieces of the reply and tool progress as they
 * happen, then the stored exchange's ChatResponse (with the turn's
 * tool_call_history when tools ran).
 */
export type TurnEvent =
  Exclude<ToolTurnEvent, { kind: 'completion' }> | { readonly kind: 'done'; readonly response: ChatResponse };

export interface CompactResult {
  readonly folded: number;
  readonly kept_recent: number;
  readonly summary_chars: number;
  readonly summary_message_id: string | null;
  readonly already_compact: boolean;
}

export class MessageService {
  constructor(
    private readonly store: ChatStore,
    private readonly deps: TurnDeps,
    private readonly broker: ClientToolBroker,
  ) {}

  /**
   * POST /api/chat/{id}/messages. Stores nothing when the provider fails.
   * Server tools run when `tools` is given and the turn enables them; client
   * tools need a stream to reach the client, so they are not offered here.
   */
  async send(
    session: Session,
    chatId: string,
    req: MessageRequest,
    signal?: AbortSignal,
    tools?: ToolEnv,
  ): Promise<ChatResponse> {
    const started = performance.now();
    const { chatSession, input } = await this.begin(session, chatId, req, signal);
    const prepared = await prepareTurn(this.deps, session, input);
    const plan = planTools(chatSession.tool_config, req.tools ?? NO_MESSAGE_TOOLS, tools, false);
    let turn: TurnResult | undefined;
    for await (const event of this.turnEvents(prepared, chatSession, signal, plan, false)) {
      if (event.kind === 'completion') turn = completedTurn(prepared, event);
    }
    return this.finish(session, chatSession, req, turn!, started);
  }

  /**
   * Opens a streamed turn: the chat session, history and prompt are checked
   * and built before it returns (an unknown chat or provider fails here,
   * before any stream opens). The events are token and tool events as they
   * happen, then one `done` with the ChatResponse once the exchange is
   * stored. A failure or an abort (`signal`: the client went away or
   * cancelled) before the end stores nothing.
   */
  async openStream(
    session: Session,
    chatId: string,
    req: MessageRequest,
    signal?: AbortSignal,
    tools?: ToolEnv,
  ): Promise<AsyncGenerator<TurnEvent>> {
    const started = performance.now();
    const { chatSession, input } = await this.begin(session, chatId, req, signal);
    const prepared = await prepareTurn(this.deps, session, input);
    const plan = planTools(chatSession.tool_config, req.tools ?? NO_MESSAGE_TOOLS, tools, true);
    return this.streamed(session, chatSession, req, prepared, started, signal, plan);
  }

  /** openStream and its events in one generator (the chat session is checked on the first pull). */
  async *sendStream(
    session: Session,
    chatId: string,
    req: MessageRequest,
    signal?: AbortSignal,
    tools?: ToolEnv,
  ): AsyncGenerator<TurnEvent> {
    yield* await this.openStream(session, chatId, req, signal, tools);
  }

  private async *streamed(
    session: Session,
    chatSession: ChatSession,
    req: MessageRequest,
    prepared: PreparedTurn,
    started: number,
    signal: AbortSignal | undefined,
    plan: ToolPlan | undefined,
  ): AsyncGenerator<TurnEvent> {
    let turn: TurnResult | undefined;
    for await (const event of this.turnEvents(prepared, chatSession, signal, plan, true)) {
      if (event.kind === 'completion') turn = completedTurn(prepared, event);
      else yield event;
    }
    signal?.throwIfAborted();
    yield { kind: 'done', response: await this.finish(session, chatSession, req, turn!, started) };
  }

  /** The provider's answer, through the tool loop when the turn offers tools. */
  private async *turnEvents(
    prepared: PreparedTurn,
    chatSession: ChatSession,
    signal: AbortSignal | undefined,
    plan: ToolPlan | undefined,
    streamed: boolean,
  ): AsyncGenerator<ToolTurnEvent> {
    const { provider, request } = prepared;
    if (plan) {
      yield* runToolTurn({
        provider,
        request,
        plan,
        broker: this.broker,
        chatId: chatSession.id,
        streamed,
        ...(signal ? { signal } : {}),
      });
      return;
    }
    if (!streamed) {
      yield { kind: 'completion', completion: await provider.complete(request, signal) };
      return;
    }
    let completion: Completion | undefined;
    for await (const chunk of provider.stream(request, signal)) {
      if (chunk.kind === 'token') yield { kind: 'token', text: chunk.text };
      else completion = chunk.completion;
    }
    if (!completion)
      throw new ProviderFailed(
        `${provider.id} ended its stream without a completion`,
        'provider_unavailable',
        provider.id,
        null,
      );
    yield { kind: 'completion', completion };
  }

  private async begin(
    session: Session,
    chatId: string,
    req: MessageRequest,
    signal?: AbortSignal,
  ): Promise<{ chatSession: ChatSession; input: TurnInput }> {
    const chatSession = this.store.chatSession(session, chatId);
    if (req.forceSummarize) await this.compact(session, chatId, undefined, signal);
    const history = await this.store.messages(session, chatId);
    return {
      chatSession,
      input: { chatSession, history, userText: req.message, ...(req.model ? { model: req.model } : {}), signal },
    };
  }

  /** Stores the user's message and the reply as one batch (the chat session's updated_at joins the group commit). */
  private async finish(
    session: Session,
    chatSession: ChatSession,
    req: MessageRequest,
    turn: TurnResult,
    started: number,
  ): Promise<ChatResponse> {
    const asked = this.store.stamp();
    const user = {
      chat_id: chatSession.id,
      role: 'user' as const,
      content: req.message,
      created_at: asked,
      updated_at: asked,
      context_snippets: [],
      token_usage: ZERO_USAGE,
      forgotten: false,
      summary: false,
    };
    const [added] = await Promise.all([
      this.store.addMessages(session, [user, this.reply(chatSession, turn)], req.bypassRipple),
      this.store.touchChatSession(session, chatSession.id, req.bypassRipple),
    ]);
    return this.response(chatSession.id, added[1]!.id, turn, started);
  }

  private reply(chatSession: ChatSession, turn: TurnResult) {
    const at = this.store.stamp();
    return {
      chat_id: chatSession.id,
      role: 'assistant' as const,
      content: turn.completion.content,
      created_at: at,
      updated_at: at,
      context_snippets: turn.snippets,
      token_usage: turn.completion.usage,
      llm_provider: chatSession.llm_provider,
      llm_model: turn.model,
      ...(turn.toolHistory ? { tool_call_history: turn.toolHistory as unknown as Record<string, unknown> } : {}),
      forgotten: false,
      summary: false,
    };
  }

  private response(chatId: string, messageId: string, turn: TurnResult, started: number): ChatResponse {
    return {
      chat_id: chatId,
      message_id: messageId,
      responses: [turn.completion.content],
      context_snippets: turn.snippets,
      execution_time_ms: Math.round(performance.now() - started),
      token_usage: turn.completion.usage,
      ...(turn.toolHistory ? { tool_call_history: turn.toolHistory } : {}),
    };
  }

  /** GET /api/chat/{id}/messages: `{messages, total, skip, limit, returned}` (records for the transport to render). */
  async list(
    session: Session,
    chatId: string,
    opts: ListOptions,
  ): Promise<{ messages: Fields[]; total: number; skip: number; limit: number | null; returned: number }> {
    this.store.chatSession(session, chatId);
    const all = await this.store.messageRecords(session, chatId);
    if (opts.sort === 'desc') all.reverse();
    const skip = opts.skip ?? 0;
    const page = all.slice(skip, opts.limit === undefined ? undefined : skip + opts.limit);
    return { messages: page, total: all.length, skip, limit: opts.limit ?? null, returned: page.length };
  }

  get(session: Session, chatId: string, messageId: string): Fields {
    this.store.chatSession(session, chatId);
    this.store.message(session, chatId, messageId);
    return this.store.messageFields(session, messageId);
  }

  async edit(session: Session, chatId: string, messageId: string, content: string): Promise<Fields> {
    this.get(session, chatId, messageId);
    await this.store.updateMessage(session, messageId, { content: { type: 'String', value: content } });
    return this.store.messageFields(session, messageId);
  }

  async setForgotten(session: Session, chatId: string, messageId: string, forgotten: boolean): Promise<Fields> {
    this.get(session, chatId, messageId);
    await this.store.updateMessage(session, messageId, { forgotten });
    return this.store.messageFields(session, messageId);
  }

  async delete(session: Session, chatId: string, messageId: string): Promise<Record<string, unknown>> {
    this.get(session, chatId, messageId);
    await this.store.deleteMessage(session, messageId);
    return { status: 'deleted', chat_id: chatId, message_id: messageId };
  }

  /**
   * POST .../messages/{id}/regenerate: answers the user message before this
   * assistant message again, with the history before that user message, and
   * replaces the reply in place (same id).
   */
  async regenerate(session: Session, chatId: string, messageId: string, signal?: AbortSignal): Promise<ChatResponse> {
    const started = performance.now();
    const chatSession = this.store.chatSession(session, chatId);
    const target = this.store.message(session, chatId, messageId);
    if (target.role !== 'assistant') {
      throw new InvalidInput(
        `Message '${messageId}' is a ${target.role} message; only an assistant message can be regenerated`,
      );
    }
    const messages = await this.store.messages(session, chatId);
    const position = messages.findIndex((message) => message.id === messageId);
    const askedAt = findLastIndex(messages, position, (message) => message.role === 'user');
    if (askedAt < 0)
      throw new InvalidInput(`Message '${messageId}' answers no user message, so there is nothing to regenerate from`);
    const turn = await runTurn(this.deps, session, {
      chatSession,
      history: messages.slice(0, askedAt),
      userText: messages[askedAt]!.content,
      signal,
    });
    await this.store.updateMessage(session, messageId, {
      content: { type: 'String', value: turn.completion.content },
      context_snippets: { type: 'Array', value: turn.snippets },
      token_usage: { type: 'Object', value: turn.completion.usage },
      llm_provider: { type: 'String', value: chatSession.llm_provider },
      llm_model: { type: 'String', value: turn.model },
    });
    await this.store.touchChatSession(session, chatId, false);
    return this.response(chatId, messageId, turn, started);
  }

  /**
   * POST /api/chat/{id}/compact: folds all but the most recent `keepRecent`
   * live messages (default: the chat session's max_context_messages, else
   * 50) and any earlier summary into one summary message written by the
   * chat session's provider, and marks what was folded forgotten.
   */
  async compact(
    session: Session,
    chatId: string,
    keepRecent: number | undefined,
    signal?: AbortSignal,
  ): Promise<CompactResult> {
    const chatSession = this.store.chatSession(session, chatId);
    const keep = keepRecent ?? chatSession.max_context_messages ?? DEFAULT_CONTEXT_MESSAGES;
    const plan = planCompaction(await this.store.messages(session, chatId), keep);
    if (plan.fold.length === 0) {
      return {
        folded: 0,
        kept_recent: plan.kept.length,
        summary_chars: 0,
        summary_message_id: null,
        already_compact: true,
      };
    }
    const folded: ChatMessageRecord[] = [...plan.summaries, ...plan.fold];
    const provider = this.deps.providers.get(chatSession.llm_provider);
    const text = await summarize(provider, folded, chatSession.llm_model ?? undefined, signal);
    const model = chatSession.llm_model;
    const [summary] = await this.store.addMessages(
      session,
      [
        {
          ...summaryMessage(chatId, text, this.store.stamp()),
          llm_provider: provider.id,
          ...(model ? { llm_model: model } : {}),
        },
      ],
      false,
    );
    await this.store.forget(
      session,
      folded.map((message) => message.id),
    );
    return {
      folded: folded.length,
      kept_recent: plan.kept.length,
      summary_chars: text.length,
      summary_message_id: summary!.id,
      already_compact: false,
    };
  }

  /**
   * POST /api/chat/{id}/tool-result (and WebSocket ClientToolResult): a
   * client tool's answer unblocks the streamed turn waiting on it, a
   * keep-alive restarts its timeout. `delivered` is false when no turn waits
   * on that call (unknown, already answered, or timed out).
   */
  toolResult(session: Session, chatId: string, result: ToolResult): Record<string, unknown> {
    this.store.chatSession(session, chatId);
    const delivered = this.broker.deliver(chatId, result);
    return { status: 'accepted', chat_id: chatId, call_id: result.callId, delivered };
  }
}

/** The turn's result from its completion event, with the tools' history when they ran. */
function completedTurn(prepared: PreparedTurn, event: Extract<ToolTurnEvent, { kind: 'completion' }>): TurnResult {
  return { ...turnResult(prepared, event.completion), ...(event.history ? { toolHistory: event.history } : {}) };
}

function findLastIndex<T>(items: readonly T[], before: number, test: (item: T) => boolean): number {
  for (let index = before - 1; index >= 0; index--) if (test(items[index]!)) return index;
  return -1;
}
