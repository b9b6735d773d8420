/** Builds chat message records for the pure session specs. */
import { ZERO_USAGE, type ChatMessageRecord, type MessageRole } from '../../../lib/chat/messages/message-record.js';

let counter = 0;

export function msg(role: MessageRole, content: string, over: Partial<ChatMessageRecord> = {}): ChatMessageRecord {
  counter += 1;
  return {
    id: `m${String(counter).padStart(4, '0')}`,
    chat_id: 'c1',
    role,
    content,
    created_at: counter * 10,
    updated_at: counter * 10,
    context_snippets: [],
    token_usage: ZERO_USAGE,
    forgotten: false,
    summary: false,
    ...over,
  };
}

/** `n` alternating user/assistant messages `q1, a1, q2, a2, ...`. */
export function conversation(n: number, chat = 'c1'): ChatMessageRecord[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? msg('user', `q${i / 2 + 1}`, { chat_id: chat })
      : msg('assistant', `a${(i + 1) / 2}`, { chat_id: chat }),
  );
}
