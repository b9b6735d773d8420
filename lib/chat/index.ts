/** Public surface of the chat layer: providers (adapters, directory, status) and embedders. */
export { embedderFor } from './embedders.js';
export { functionAi } from './function-ai.js';
export { OpenAiEmbedder, DEFAULT_EMBEDDING_MODEL } from './providers/openai-embedder.js';
export { classifyProviderError, providerNotConfigured, type ProviderErrorKind } from './providers/provider-error.js';
export {
  isProviderId,
  NO_PROVIDERS,
  pickProvider,
  OPENAI_COMPATIBLE_DEFAULT_URL,
  PROVIDER_IDS,
  PROVIDER_SETTING_KEYS,
  SettingsProviderDirectory,
  type ProviderSettings,
} from './providers/directory.js';
export {
  entryOfFailure,
  probeProvider,
  probeProviders,
  type ProviderProbe,
  type ProviderStatus,
  type ProviderStatusEntry,
} from './providers/status.js';
export { contextBlock, LOCAL_MODEL, LocalProvider } from './providers/local.js';
export { isCallerAbort } from './providers/http-client.js';
export type {
  ChatMessage,
  ChatProvider,
  ChatRole,
  Completion,
  CompletionChunk,
  CompletionRequest,
  ProviderDirectory,
  ProviderId,
  TokenUsage,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from './providers/provider.js';
export { ChatService, type ChatDeps } from './chat-service.js';
export {
  CHAT_DATABASE_NAME,
  CHAT_MESSAGES_COLLECTION,
  CHAT_SESSIONS_COLLECTION,
  DEFAULT_CONTEXT_MESSAGES,
} from './chat-sessions/names.js';
export type { ChatResponse } from './chat-sessions/chat-session-wire.js';
export type { ChatSession, CollectionConfig } from './chat-sessions/chat-session-config.js';
export {
  parseCompact,
  parseContentEdit,
  parseForgotten,
  parseMerge,
  parseMessageRequest,
  parseToolResult,
} from './messages/message-request.js';
export type { TurnEvent } from './messages/message-service.js';
export { ClientToolBroker, type BrokerClock, type ClientToolAnswer } from './tools/client-tool-broker.js';
export {
  executeServerTool,
  isServerTool,
  MAX_RESULTS,
  SERVER_TOOLS,
  serverToolSpecs,
  type ToolContext,
  type ToolOutcome,
} from './tools/server-tools.js';
export { parseClientTools, resolveToolConfig, type MessageTools, type ToolConfig } from './tools/tool-config.js';
export type { ToolEnv, ToolHistory } from './messages/tool-turn.js';
