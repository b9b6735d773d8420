/**
 * Where chat sessions and messages are stored: the database-wide collections
 * `chat_configurations_{database}` and `chat_messages_{database}` (product.md,
 * Chat session). The server has no database-name setting, so `{database}` is
 * `default`. Both are internal collections (hidden by `exclude_internal`),
 * written through the engine like any record, so they are logged,
 * snapshotted, recovered and replicated with no storage code of their own.
 */
export const CHAT_DATABASE_NAME = 'default';
export const CHAT_SESSIONS_COLLECTION = `chat_configurations_${CHAT_DATABASE_NAME}`;
export const CHAT_MESSAGES_COLLECTION = `chat_messages_${CHAT_DATABASE_NAME}`;

/** Messages replayed into a prompt, and kept by compaction, when the chat session sets no `max_context_messages`. */
export const DEFAULT_CONTEXT_MESSAGES = 50;
