/**
 * The protocol shapes of chat sessions and turns (protocol.md 2.12): the
 * ChatSession list item (bare values; Rust requires chat_id, created_at,
 * updated_at, llm_provider, llm_model, collections and message_count), the
 * ChatSessionResponse and the ChatResponse. Times are RFC 3339 strings.
 */
import type { TokenUsage } from '../providers/provider.js';
import type { ContextSnippet } from '../messages/message-record.js';
import type { ChatSession } from './chat-session-config.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function chatSessionToWire(chatSession: ChatSession, messageCount: number): Record<string, unknown> {
  const optional = (name: keyof ChatSession) => (chatSession[name] === null ? {} : { [name]: chatSession[name] });
  return {
    chat_id: chatSession.id,
    id: chatSession.id,
    created_at: iso(chatSession.created_at),
    updated_at: iso(chatSession.updated_at),
    llm_provider: chatSession.llm_provider,
    llm_model: chatSession.llm_model ?? '',
    collections: chatSession.collections,
    ...optional('system_prompt'),
    ...optional('agent_id'),
    title: chatSession.title,
    ...optional('max_context_messages'),
    ...optional('max_tokens'),
    ...optional('temperature'),
    ...optional('tool_config'),
    ...optional('memory'),
    ...optional('parent_id'),
    ...optional('branch_point_idx'),
    message_count: messageCount,
  };
}

/** `{session, message_count}` (GET/PUT /api/chat/{id}, merge). */
export function chatSessionResponse(
  chatSession: ChatSession,
  messageCount: number,
): { session: Record<string, unknown>; message_count: number } {
  return { session: chatSessionToWire(chatSession, messageCount), message_count: messageCount };
}

export interface ChatResponse {
  readonly chat_id: string;
  readonly message_id: string;
  readonly responses: string[];
  readonly context_snippets: readonly ContextSnippet[];
  readonly execution_time_ms: number;
  readonly token_usage?: TokenUsage;
  /** `{iterations, tool_calls, tool_results}` when the turn ran tools. */
  readonly tool_call_history?: unknown;
}

/** The answer to creating or branching a chat session: a full ChatResponse with no message yet. */
export function emptyChatResponse(chatId: string): ChatResponse {
  return { chat_id: chatId, message_id: '', responses: [], context_snippets: [], execution_time_ms: 0 };
}
