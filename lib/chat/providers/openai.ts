/**
 * OpenAI (Chat Completions API): `Authorization: Bearer`, `/models`,
 * `/chat/completions` (streamed as SSE with usage), tool calls,
 * `/embeddings`. The base URL is `openai_api_url` when set.
 */
import type { ChatProvider, Completion, CompletionChunk, CompletionRequest } from './provider.js';
import {
  authHeaders,
  completeChat,
  embedTexts,
  listModelIds,
  streamChat,
  type ChatCompletionsEndpoint,
} from './chat-completions.js';

export const OPENAI_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';
export const OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

export class OpenAiProvider implements ChatProvider {
  readonly id = 'openai' as const;
  private readonly ep: ChatCompletionsEndpoint;

  constructor(apiKey: string | null, baseUrl: string | null, timeoutMs: number) {
    this.ep = { provider: this.id, baseUrl: baseUrl ?? OPENAI_URL, apiKey, timeoutMs };
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return listModelIds(this.id, `${this.ep.baseUrl}/models`, authHeaders(this.ep.apiKey), this.ep.timeoutMs, signal);
  }

  complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    return completeChat(this.ep, req, req.model ?? OPENAI_DEFAULT_MODEL, signal);
  }

  stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk> {
    return streamChat(this.ep, req, req.model ?? OPENAI_DEFAULT_MODEL, signal);
  }

  embed(texts: readonly string[], model?: string, signal?: AbortSignal): Promise<number[][]> {
    return embedTexts(this.ep, texts, model ?? OPENAI_EMBEDDING_MODEL, signal);
  }
}
