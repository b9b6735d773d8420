/**
 * A chat message as the service knows it, and its stored form: one record
 * of `chat_messages_{db}` (protocol.md 2.12, Message record). Strings are
 * written as explicit String values, so a message that happens to look like
 * a date stays text; times are DateTime values. Reading is defensive: a
 * record edited through the records API with a missing or odd member reads
 * as an empty or default value rather than failing the whole conversation.
 */
import { bareValue, Tagged, type Fields, type Value } from '../../engine/index.js';
import type { TokenUsage } from '../providers/provider.js';

export type MessageRole = 'user' | 'assistant' | 'system';

/** One retrieved record as a message carries it and a ChatResponse returns it (the record bare, with its id). */
export interface ContextSnippet {
  readonly collection: string;
  readonly record: Readonly<Record<string, unknown>>;
  readonly score: number;
  readonly matched_fields: readonly string[];
}

export interface ChatMessageRecord {
  readonly id: string;
  readonly chat_id: string;
  readonly role: MessageRole;
  readonly content: string;
  /** Milliseconds since the epoch; the order of a conversation. */
  readonly created_at: number;
  readonly updated_at: number;
  readonly context_snippets: readonly ContextSnippet[];
  readonly token_usage: TokenUsage;
  readonly llm_provider?: string;
  readonly llm_model?: string;
  readonly tool_call_history?: Readonly<Record<string, unknown>>;
  /** Excluded from the prompt (by the client, or folded into a compaction summary). */
  readonly forgotten: boolean;
  /** A compaction (or Summarized merge) summary: replayed ahead of the history. */
  readonly summary: boolean;
}

/** A message about to be stored (the engine gives it its id). */
export type NewMessage = Omit<ChatMessageRecord, 'id'>;

export const ZERO_USAGE: TokenUsage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export const text = (value: string) => ({ type: 'String', value });
export const dateTime = (ms: number) => ({ type: 'DateTime', value: new Date(ms).toISOString() });

/** The wire body that stores `m` (an insert, or an update with the same members). */
export function messageToStored(message: NewMessage): Record<string, unknown> {
  const history = message.tool_call_history;
  return {
    chat_id: text(message.chat_id),
    role: text(message.role),
    content: text(message.content),
    created_at: dateTime(message.created_at),
    updated_at: dateTime(message.updated_at),
    context_snippets: { type: 'Array', value: message.context_snippets },
    token_usage: { type: 'Object', value: message.token_usage },
    ...(message.llm_provider !== undefined ? { llm_provider: text(message.llm_provider) } : {}),
    ...(message.llm_model !== undefined ? { llm_model: text(message.llm_model) } : {}),
    ...(history !== undefined
      ? { tool_call_history: { type: 'Object', value: history }, tool_call_count: toolCallCount(history) }
      : {}),
    forgotten: message.forgotten,
    ...(message.summary ? { summary: true } : {}),
  };
}

function toolCallCount(history: Readonly<Record<string, unknown>>): number {
  return Array.isArray(history.tool_calls) ? history.tool_calls.length : 0;
}

export function stringOf(value: Value | undefined): string | undefined {
  const bare = value === undefined ? undefined : bareValue(value);
  return typeof bare === 'string' ? bare : undefined;
}

export function millisOf(value: Value | undefined): number {
  const time = value instanceof Tagged && value.type === 'DateTime' ? String(value.value) : stringOf(value);
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isFinite(ms) ? ms : 0;
}

function usageOf(value: Value | undefined): TokenUsage {
  const usage = value as Record<string, unknown> | undefined;
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return ZERO_USAGE;
  const count = (name: string) => (typeof usage[name] === 'number' ? (usage[name] as number) : 0);
  return {
    prompt_tokens: count('prompt_tokens'),
    completion_tokens: count('completion_tokens'),
    total_tokens: count('total_tokens'),
  };
}

function snippetsOf(value: Value | undefined): ContextSnippet[] {
  return Array.isArray(value) ? (value as unknown as ContextSnippet[]) : [];
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system']);

/** The message a stored record holds. */
export function messageFromStored(fields: Fields): ChatMessageRecord {
  const role = stringOf(fields.role);
  const history = fields.tool_call_history;
  const provider = stringOf(fields.llm_provider),
    model = stringOf(fields.llm_model);
  return {
    id: String(fields.id),
    chat_id: stringOf(fields.chat_id) ?? '',
    role: role !== undefined && ROLES.has(role) ? (role as MessageRole) : 'user',
    content: stringOf(fields.content) ?? '',
    created_at: millisOf(fields.created_at),
    updated_at: millisOf(fields.updated_at),
    context_snippets: snippetsOf(fields.context_snippets),
    token_usage: usageOf(fields.token_usage),
    ...(provider !== undefined ? { llm_provider: provider } : {}),
    ...(model !== undefined ? { llm_model: model } : {}),
    ...(history && typeof history === 'object' && !Array.isArray(history) && !(history instanceof Tagged)
      ? { tool_call_history: history as Readonly<Record<string, unknown>> }
      : {}),
    forgotten: fields.forgotten === true,
    summary: fields.summary === true,
  };
}

/** A synthetic summary message (compaction, Summarized merge): replayed ahead of the history, never as a turn. */
export function summaryMessage(chatId: string, content: string, at: number): NewMessage {
  return {
    chat_id: chatId,
    role: 'system',
    content,
    created_at: at,
    updated_at: at,
    context_snippets: [],
    token_usage: ZERO_USAGE,
    forgotten: false,
    summary: true,
  };
}

/** Conversation order: creation time, then id (two messages stamped in the same millisecond keep one order). */
export function byConversationOrder(left: ChatMessageRecord, right: ChatMessageRecord): number {
  return left.created_at - right.created_at || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}
