/**
 * The one interface every LLM provider adapter implements (openai,
 * anthropic, perplexity, an OpenAI-compatible endpoint, and the built-in
 * offline `local` provider). Chat sessions, raw completion, the Chat and Embed
 * function steps and the models listing speak only this interface; each
 * adapter translates it to its vendor's wire API.
 *
 * Failures are thrown as `ProviderFailed` (classifyProviderError in
 * provider-error.ts), never as a plain Error: the one error renderer turns
 * them into the classified HTTP body, an SSE error frame or a WebSocket
 * ChatStreamError. Every call takes an AbortSignal, fired when the client
 * goes away, which must cancel the upstream request.
 */

/**
 * Provider identifiers: the three accepted at chat session creation, the
 * OpenAI-compatible endpoint, and the offline one.
 */
export type ProviderId = 'openai' | 'anthropic' | 'perplexity' | 'openai_compatible' | 'local';

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call the model asked for (arguments already parsed from the vendor's JSON text). */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** On an assistant message that asked for tools. */
  readonly toolCalls?: readonly ToolCall[];
  /** On a `tool` message: which call it answers. */
  readonly toolCallId?: string;
}

/** A tool offered to the model: name, description, JSON Schema of its parameters. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

export type ToolChoice =
  { readonly type: 'auto' | 'none' | 'required' } | { readonly type: 'tool'; readonly name: string };

export interface CompletionRequest {
  /** The model; undefined means the adapter's default. */
  readonly model?: string;
  /** In order; a leading `system` message is the system prompt (adapters move it where their API wants it). */
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly tools?: readonly ToolSpec[];
  readonly toolChoice?: ToolChoice;
}

export interface TokenUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export interface Completion {
  readonly content: string;
  /** The model that answered (as the vendor names it). */
  readonly model: string;
  readonly usage: TokenUsage;
  /** Present when the model asked for tools instead of (or before) answering. */
  readonly toolCalls?: readonly ToolCall[];
}

/** One piece of a streamed completion: text as it comes, then exactly one `done` with the whole answer. */
export type CompletionChunk =
  { readonly kind: 'token'; readonly text: string } | { readonly kind: 'done'; readonly completion: Completion };

export interface ChatProvider {
  readonly id: ProviderId;
  /**
   * False when `listModels` answers a fixed list without asking the vendor, so listing does not verify the key
   * (perplexity).
   */
  readonly hasModelsEndpoint?: boolean;
  /** Model names this provider offers (a `ProviderFailed` when the vendor refuses). */
  listModels(signal?: AbortSignal): Promise<string[]>;
  complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion>;
  /** Streams tokens; ends with one `done` chunk. Aborting the signal cancels the upstream request. */
  stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk>;
  /** Embeddings for `texts` (one vector each), or undefined when the provider has no embeddings API. */
  embed?(texts: readonly string[], model?: string, signal?: AbortSignal): Promise<number[][]>;
}

/** Finds a configured provider by id; throws the classified `provider_not_configured` failure when it is not. */
export interface ProviderDirectory {
  get(id: string): ChatProvider;
  /** Ids with a configuration (a key or a base URL), plus `local`. */
  configured(): readonly ProviderId[];
}
