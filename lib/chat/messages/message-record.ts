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
export function messageToStored(m: NewMessage): Record<string, unknown> {
  return {
    chat_id: text(m.chat_id), role: text(m.role), content: text(m.content),
    created_at: dateTime(m.created_at), updated_at: dateTime(m.updated_at),
    context_snippets: { type: 'Array', value: m.context_snippets }, token_usage: { type: 'Object', value: m.token_usage },
    ...(m.llm_provider !== undefined ? { llm_provider: text(m.llm_provider) } : {}),
    ...(m.llm_model !== undefined ? { llm_model: text(m.llm_model) } : {}),
    ...(m.tool_call_history !== undefined ? { tool_call_history: { type: 'Object', value: m.tool_call_history } } : {}),
    ...(m.tool_call_history !== undefined ? { tool_call_count: toolCallCount(m.tool_call_history) } : {}),
    forgotten: m.forgotten,
    ...(m.summary ? { summary: true } : {}),
  };
}

function toolCallCount(history: Readonly<Record<string, unknown>>): number {
  return Array.isArray(history.tool_calls) ? history.tool_calls.length : 0;
}

export function stringOf(v: Value | undefined): string | undefined {
  const b = v === undefined ? undefined : bareValue(v);
  return typeof b === 'string' ? b : undefined;
}

export function millisOf(v: Value | undefined): number {
  const s = v instanceof Tagged && v.type === 'DateTime' ? String(v.value) : stringOf(v);
  const ms = s === undefined ? NaN : Date.parse(s);
  return Number.isFinite(ms) ? ms : 0;
}

function usageOf(v: Value | undefined): TokenUsage {
  const o = v as Record<string, unknown> | undefined;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return ZERO_USAGE;
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : 0);
  return { prompt_tokens: n('prompt_tokens'), completion_tokens: n('completion_tokens'), total_tokens: n('total_tokens') };
}

function snippetsOf(v: Value | undefined): ContextSnippet[] {
  return Array.isArray(v) ? (v as unknown as ContextSnippet[]) : [];
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system']);

/** The message a stored record holds. */
export function messageFromStored(f: Fields): ChatMessageRecord {
  const role = stringOf(f.role);
  const history = f.tool_call_history;
  const provider = stringOf(f.llm_provider), model = stringOf(f.llm_model);
  return {
    id: String(f.id), chat_id: stringOf(f.chat_id) ?? '', role: role !== undefined && ROLES.has(role) ? role as MessageRole : 'user',
    content: stringOf(f.content) ?? '', created_at: millisOf(f.created_at), updated_at: millisOf(f.updated_at),
    context_snippets: snippetsOf(f.context_snippets), token_usage: usageOf(f.token_usage),
    ...(provider !== undefined ? { llm_provider: provider } : {}),
    ...(model !== undefined ? { llm_model: model } : {}),
    ...(history && typeof history === 'object' && !Array.isArray(history) && !(history instanceof Tagged)
      ? { tool_call_history: history as Readonly<Record<string, unknown>> } : {}),
    forgotten: f.forgotten === true, summary: f.summary === true,
  };
}

/** Conversation order: creation time, then id (two messages stamped in the same millisecond keep one order). */
export function byConversationOrder(a: ChatMessageRecord, b: ChatMessageRecord): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
