/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint (OpenAI
 * itself, or any server speaking its API). Failures are classified into the
 * provider error body; the API key never appears in errors or logs.
 */
import { InvalidInput } from '../../errors.js';
import type { Embedder } from '../../vector/index.js';
import { classifyProviderError } from './provider-error.js';
import { providerFetch } from './http-client.js';

export const DEFAULT_OPENAI_URL = 'https://api.openai.com/v1';
export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

export class OpenAiEmbedder implements Embedder {
  dimensions = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | null,
    readonly model: string = DEFAULT_EMBEDDING_MODEL,
    private readonly timeoutMs = 30_000,
  ) {}

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string'))
      throw new InvalidInput("'texts' must be an array of strings");
    // Through the providers' client: proxies, the host policy, no redirects, classified failures.
    const answer = await providerFetch({
      provider: 'openai',
      url: `${this.baseUrl}/embeddings`,
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
      headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      body: { model: this.model, input: texts },
    });
    const text = await answer.text();
    let body: { data?: Array<{ embedding?: unknown; index?: number }> };
    try {
      body = JSON.parse(text);
    } catch {
      throw classifyProviderError('openai', 502, 'unusable body');
    }
    const rows = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (
      rows.length !== texts.length ||
      !rows.every((r) => Array.isArray(r.embedding) && r.embedding.every((x) => typeof x === 'number'))
    ) {
      throw classifyProviderError('openai', 502, 'unusable body');
    }
    const out = rows.map((r) => r.embedding as number[]);
    this.dimensions = out[0]?.length ?? this.dimensions;
    return out;
  }
}
