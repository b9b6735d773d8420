/** Public surface of the chat layer (providers and embedders so far). */
export { embedderFor } from './embedders.js';
export { OpenAiEmbedder, DEFAULT_EMBEDDING_MODEL } from './providers/openai-embedder.js';
export { NO_PROVIDERS } from './providers/no-providers.js';
export { classifyProviderError, type ProviderErrorKind } from './providers/provider-error.js';
export type {
  ChatMessage, ChatProvider, ChatRole, Completion, CompletionChunk, CompletionRequest, ProviderDirectory, ProviderId, TokenUsage, ToolCall, ToolChoice, ToolSpec,
} from './providers/provider.js';
export {
  ChatService, CHAT_DATABASE_NAME, CHAT_MESSAGES_COLLECTION, CHAT_SESSIONS_COLLECTION, DEFAULT_CONTEXT_MESSAGES,
  parseCompact, parseContentEdit, parseForgotten, parseMerge, parseMessageRequest, parseToolResult,
  type ChatDeps, type ChatResponse, type ChatSession, type CollectionConfig, type TurnEvent,
} from './sessions/index.js';
