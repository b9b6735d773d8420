/** Public surface of chat sessions (through lib/chat/index.ts). */
export { ChatService, type ChatDeps } from './service.js';
export type { TurnEvent } from './message-service.js';
export { CHAT_DATABASE_NAME, CHAT_MESSAGES_COLLECTION, CHAT_SESSIONS_COLLECTION, DEFAULT_CONTEXT_MESSAGES } from './names.js';
export { parseCompact, parseContentEdit, parseForgotten, parseMerge, parseMessageRequest, parseToolResult } from './message-request.js';
export type { ChatResponse } from './session-wire.js';
export type { ChatSession, CollectionConfig } from './session-config.js';
export type { MessageRequest } from './message-request.js';
