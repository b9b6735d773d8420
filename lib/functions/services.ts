/**
 * What a stored-function call reaches beyond its working records, each as
 * a small interface: the engine as the interpreter and the registry use it
 * (`FunctionEngine`), the key-value store the KV, concurrency and SWR steps
 * use, the language-model port of the Chat and Embed steps, and where
 * bcrypt's rounds run. Steps see them through their `Execution`
 * (steps/step.ts), never the whole database.
 *
 * A `Database` satisfies `FunctionEngine` as it is, so the composition root
 * passes its own; lib/functions never imports the façade.
 */
import type {
  Fields,
  IsolationLevel,
  LoggedBatch,
  Pattern,
  Session,
  Settings,
  TransactionSession,
  Value,
} from '../engine/index.js';
import { ProviderFailed } from '../errors.js';
import { OFFLINE_MODEL, OfflineEmbedder } from '../vector/index.js';

/**
 * The key-value store: durable on return, never part of a transaction. Keys are checked by the store (InvalidInput).
 */
export interface KeyValueStore {
  /** The live entry (value and expiry in epoch ms), undefined when absent or expired. */
  entry(key: string): { readonly value: Value; readonly expiresAt?: number } | undefined;
  /** The stored value; NotFound when absent or expired. */
  get(key: string): Value;
  /** Stores a wire value with an optional TTL (seconds, a duration such as "5m", or an RFC 3339 instant). */
  set(key: string, wireValue: unknown, ttl?: unknown): Promise<void>;
  /** True when the key had an entry to delete. */
  delete(key: string): Promise<boolean>;
  /** Entries whose key matches `pattern` (every key when undefined), in key order. */
  find(
    pattern: Pattern | undefined,
    includeExpired: boolean,
  ): Promise<Array<{ key: string; value: Value; expires_at?: string }>>;
  /** Stores the value only when the key has no live entry, in one write of the single writer. */
  setIfAbsent(
    key: string,
    wireValue: unknown,
    ttl?: unknown,
  ): Promise<{ created: true } | { created: false; value: Value }>;
  /** Adds one to the counter under `key` unless it reached `limit`; a new counter expires at `expiresAt` (epoch ms). */
  incrementBelow(key: string, limit: number, expiresAt: number): Promise<{ count: number; incremented: boolean }>;
  /** Deletes the key when its live value passes `test` (a pure check, run in the single writer). */
  deleteIf(key: string, test: (value: Value) => boolean): Promise<boolean>;
}

/**
 * The engine as the functions layer uses it, and no more: statements
 * through sessions, transactions for transactional functions, the settings
 * and clock, the key-value store, and, for the registry of definitions,
 * commit notices and a scan of committed records.
 */
export interface FunctionEngine {
  /** Milliseconds since the epoch, from the engine's injectable clock. */
  now(): number;
  settings(): Settings;
  readonly kv: KeyValueStore;
  /** The auto-commit session (each statement commits on its own). */
  session(caller: undefined): Session;
  /** The session of transaction `transactionId`. */
  session(caller: undefined, transactionId: string): TransactionSession;
  readonly transactions: {
    begin(isolation: IsolationLevel | undefined, timeoutSecs: number, owner: string): { readonly id: string };
  };
  /** Called after every committed batch (a save here, a ripple, a restore). */
  onCommit(listener: (batch: LoggedBatch) => void): void;
  readonly records: {
    /** The committed records of a collection, read synchronously. */
    scan(collection: string): IterableIterator<Fields>;
  };
}

/**
 * One bcrypt computation: the key (the password's UTF-8 bytes and a NUL, at most 72 bytes), a 16-byte salt, the cost.
 */
export interface BcryptJob {
  readonly key: Uint8Array;
  readonly salt: Uint8Array;
  readonly cost: number;
}

/** Where bcrypt's expensive rounds run (the server's worker threads, or sliced on the event loop). */
export interface BcryptRunner {
  /** The 23 raw hash bytes. Rejects with `signal.reason` once `signal` aborts; the work stops or is abandoned. */
  raw(job: BcryptJob, signal?: AbortSignal): Promise<Uint8Array>;
}

/*
 * The language-model port the Chat and Embed steps call. lib/functions may
 * not import lib/chat (chat imports functions), so the steps speak this
 * small interface, which mirrors the few members of lib/chat's
 * ChatProvider and Embedder they need; the composition root (through
 * lib/chat's `functionAi`) supplies it from the providers and the embedder
 * configured in the settings. Failures are the providers' own classified
 * `ProviderFailed`. Without a port (an engine embedded with no chat layer)
 * completions are `provider_not_configured` and embeddings come from the
 * offline embedder.
 */

export type AiRole = 'system' | 'user' | 'assistant';

export const AI_ROLES: readonly AiRole[] = ['system', 'user', 'assistant'];

export interface AiMessage {
  readonly role: AiRole;
  readonly content: string;
}

export interface AiCompletionRequest {
  /** A provider id (`openai`, `local`...); undefined: the first configured provider, else `local`. */
  readonly provider?: string;
  /** Undefined: the provider's default model. */
  readonly model?: string;
  readonly messages: readonly AiMessage[];
  readonly temperature?: number;
  readonly maxTokens?: number;
}

export interface AiCompletion {
  readonly content: string;
  /** The provider that answered and its model. */
  readonly provider: string;
  readonly model: string;
  /** Prompt and completion tokens together, as the provider counted them. */
  readonly totalTokens: number;
}

export interface AiEmbeddings {
  /** One vector per text, in order. */
  readonly vectors: readonly (readonly number[])[];
  readonly model: string;
}

export interface FunctionAi {
  /** One completion; aborting `signal` cancels the upstream request. */
  complete(req: AiCompletionRequest, signal?: AbortSignal): Promise<AiCompletion>;
  /** Embeddings of `texts` with the configured embedder (`model` undefined: its default). */
  embed(texts: readonly string[], model: string | undefined, signal?: AbortSignal): Promise<AiEmbeddings>;
}

const offline = new OfflineEmbedder();

/** The port when none is supplied: no provider, the offline embedder. */
export const NO_FUNCTION_AI: FunctionAi = Object.freeze({
  complete: async (req: AiCompletionRequest): Promise<AiCompletion> => {
    const provider = req.provider ?? 'local';
    throw new ProviderFailed(`Provider '${provider}' is not configured`, 'provider_not_configured', provider, null);
  },
  embed: async (texts: readonly string[], model: string | undefined): Promise<AiEmbeddings> => {
    if (model !== undefined && model !== OFFLINE_MODEL) {
      throw new ProviderFailed(
        `Embedding model '${model}' needs a configured provider`,
        'provider_not_configured',
        'openai',
        null,
      );
    }
    return { vectors: await offline.embed([...texts]), model: offline.model };
  },
});
