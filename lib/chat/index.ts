/** Public surface of the chat layer (providers and embedders so far). */
export { embedderFor } from './embedders.js';
export { OpenAiEmbedder, DEFAULT_EMBEDDING_MODEL } from './providers/openai-embedder.js';
export { classifyProviderError, type ProviderErrorKind } from './providers/provider-error.js';
export type {
  ChatMessage, ChatProvider, ChatRole, Completion, CompletionChunk, CompletionRequest, ProviderDirectory, ProviderId, TokenUsage, ToolCall, ToolChoice, ToolSpec,
} from './providers/provider.js';
