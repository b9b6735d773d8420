/**
 * An OpenAI-compatible server (Ollama, vLLM, llama.cpp's server, LM Studio):
 * `openai_compatible_url` is the server's root (`/v1` is appended unless the
 * URL already ends with it) and the key is optional. `/v1/models` lists the
 * models; without a model in the request the first listed one is used.
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
import { unusableAnswer } from './provider-error.js';
import { isCallerAbort } from './http-client.js';

export class OpenAiCompatibleProvider implements ChatProvider {
  readonly id = 'openai_compatible' as const;
  private readonly ep: ChatCompletionsEndpoint;

  constructor(apiKey: string | null, rootUrl: string, timeoutMs: number) {
    const root = rootUrl.replace(/\/+$/, '');
    this.ep = { provider: this.id, baseUrl: /\/v1$/.test(root) ? root : `${root}/v1`, apiKey, timeoutMs };
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return listModelIds(this.id, `${this.ep.baseUrl}/models`, authHeaders(this.ep.apiKey), this.ep.timeoutMs, signal);
  }

  async complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    return completeChat(this.ep, req, await this.modelFor(req, signal), signal);
  }

  async *stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk> {
    let model: string;
    try {
      model = await this.modelFor(req, signal);
    } catch (err) {
      if (isCallerAbort(err, signal)) return;
      throw err;
    }
    yield* streamChat(this.ep, req, model, signal);
  }

  async embed(texts: readonly string[], model?: string, signal?: AbortSignal): Promise<number[][]> {
    return embedTexts(this.ep, texts, model ?? (await this.modelFor({ messages: [] }, signal)), signal);
  }

  /** The request's model, else the server's first (a local server usually serves the one it loaded). */
  private async modelFor(req: CompletionRequest, signal?: AbortSignal): Promise<string> {
    if (req.model) return req.model;
    const [first] = await this.listModels(signal);
    if (!first) throw unusableAnswer(this.id, 'no model is served and the request names none');
    return first;
  }
}
