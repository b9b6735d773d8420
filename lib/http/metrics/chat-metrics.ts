/**
 * LLM provider calls: latency by provider and operation, tokens by provider
 * and direction, failures by provider and error kind. The chat layer knows
 * nothing of it: `meteredProviders` wraps the provider directory the
 * server hands to chat sessions and function steps, and each provider it
 * returns times the calls of the one it wraps. Labels are bounded by the
 * provider ids, the four operations and the classified error kinds
 * (`other` for a failure that is not a ProviderFailed, `cancelled` for a
 * caller that went away).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { ProviderFailed } from '../../errors.js';
import type {
  ChatProvider,
  Completion,
  CompletionChunk,
  CompletionRequest,
  ProviderDirectory,
  TokenUsage,
} from '../../chat/index.js';

type Operation = 'complete' | 'stream' | 'embed' | 'models';

const PROVIDER_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

export class ChatMetrics {
  private readonly seconds: Histogram<'provider' | 'operation'>;
  private readonly tokens: Counter<'provider' | 'direction'>;
  private readonly errors: Counter<'provider' | 'kind'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.seconds = new Histogram({
      name: 'eddydb_chat_provider_duration_seconds',
      help: 'Time of each LLM provider call that succeeded (a stream: to its last chunk), by provider and operation.',
      labelNames: ['provider', 'operation'],
      buckets: PROVIDER_SECONDS_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: 'eddydb_chat_provider_tokens_total',
      help: 'Tokens the providers reported, by provider and direction (prompt or completion).',
      labelNames: ['provider', 'direction'],
      registers,
    });
    this.errors = new Counter({
      name: 'eddydb_chat_provider_errors_total',
      help: 'LLM provider calls that failed, by provider and error kind (the classified provider_* kinds).',
      labelNames: ['provider', 'kind'],
      registers,
    });
  }

  succeeded(provider: string, operation: Operation, startedAt: number): void {
    this.seconds.observe({ provider, operation }, (performance.now() - startedAt) / 1000);
  }

  used(provider: string, usage: TokenUsage): void {
    if (usage.prompt_tokens > 0) this.tokens.inc({ provider, direction: 'prompt' }, usage.prompt_tokens);
    if (usage.completion_tokens > 0) this.tokens.inc({ provider, direction: 'completion' }, usage.completion_tokens);
  }

  failed(provider: string, err: unknown, signal: AbortSignal | undefined): void {
    const kind = err instanceof ProviderFailed ? err.kind : signal?.aborted ? 'cancelled' : 'other';
    this.errors.inc({ provider, kind });
  }

  /** Times `call`, counting its failure; resolves or rejects as it does. */
  async timed<T>(provider: string, operation: Operation, signal: AbortSignal | undefined, call: () => Promise<T>) {
    const startedAt = performance.now();
    try {
      const out = await call();
      this.succeeded(provider, operation, startedAt);
      return out;
    } catch (err) {
      this.failed(provider, err, signal);
      throw err;
    }
  }
}

/** `directory`, whose providers report their calls to `metrics`. */
export function meteredProviders(directory: ProviderDirectory, metrics: ChatMetrics): ProviderDirectory {
  return {
    get: (id) => meteredProvider(directory.get(id), metrics),
    configured: () => directory.configured(),
  };
}

function meteredProvider(provider: ChatProvider, metrics: ChatMetrics): ChatProvider {
  const id = provider.id;
  const embed = provider.embed?.bind(provider);
  return {
    id,
    ...(provider.hasModelsEndpoint !== undefined ? { hasModelsEndpoint: provider.hasModelsEndpoint } : {}),
    listModels: (signal) => metrics.timed(id, 'models', signal, () => provider.listModels(signal)),
    complete: (req, signal) =>
      metrics.timed(id, 'complete', signal, async () => {
        const completion = await provider.complete(req, signal);
        metrics.used(id, completion.usage);
        return completion;
      }),
    stream: (req, signal) => meteredStream(provider, req, signal, metrics),
    ...(embed
      ? { embed: (texts, model, signal) => metrics.timed(id, 'embed', signal, () => embed(texts, model, signal)) }
      : {}),
  };
}

/** The provider's stream, timed to its `done` chunk, whose usage is counted. */
async function* meteredStream(
  provider: ChatProvider,
  req: CompletionRequest,
  signal: AbortSignal | undefined,
  metrics: ChatMetrics,
): AsyncIterable<CompletionChunk> {
  const startedAt = performance.now();
  let completion: Completion | undefined;
  try {
    for await (const chunk of provider.stream(req, signal)) {
      if (chunk.kind === 'done') completion = chunk.completion;
      yield chunk;
    }
  } catch (err) {
    metrics.failed(provider.id, err, signal);
    throw err;
  }
  if (!completion) return;
  metrics.succeeded(provider.id, 'stream', startedAt);
  metrics.used(provider.id, completion.usage);
}
