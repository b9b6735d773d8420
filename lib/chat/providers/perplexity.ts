/**
 * Perplexity: OpenAI-style chat completions at `https://api.perplexity.ai`
 * (`/chat/completions`, Bearer key, SSE streaming). It has no models
 * endpoint, so `listModels` answers the documented list below without a
 * request, and its status is `ok` with `verified: false` (the key is not
 * checked until a chat uses it).
 */
import type { ChatProvider, Completion, CompletionChunk, CompletionRequest } from './provider.js';
import { completeChat, streamChat, type ChatCompletionsEndpoint } from './chat-completions.js';

export const PERPLEXITY_URL = 'https://api.perplexity.ai';
/** Perplexity's published chat models (docs.perplexity.ai, "Models"). */
export const PERPLEXITY_MODELS: readonly string[] = [
  'sonar',
  'sonar-deep-research',
  'sonar-pro',
  'sonar-reasoning',
  'sonar-reasoning-pro',
];
export const PERPLEXITY_DEFAULT_MODEL = 'sonar';

export class PerplexityProvider implements ChatProvider {
  readonly id = 'perplexity' as const;
  /** No models endpoint: the list is static and the key unverified. */
  readonly hasModelsEndpoint = false;
  private readonly ep: ChatCompletionsEndpoint;

  constructor(apiKey: string | null, baseUrl: string | null, timeoutMs: number) {
    this.ep = { provider: this.id, baseUrl: baseUrl ?? PERPLEXITY_URL, apiKey, timeoutMs };
  }

  async listModels(): Promise<string[]> {
    return [...PERPLEXITY_MODELS];
  }

  complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    return completeChat(this.ep, req, req.model ?? PERPLEXITY_DEFAULT_MODEL, signal);
  }

  stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk> {
    return streamChat(this.ep, req, req.model ?? PERPLEXITY_DEFAULT_MODEL, signal);
  }
}
