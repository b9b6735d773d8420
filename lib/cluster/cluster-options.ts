/**
 * What a cluster node is configured with (`--nats`, `--cluster`,
 * `--advertise-url`, `--lease-ttl`, `--stream-max-bytes`, `--stream-max-age`)
 * and what health shows of it.
 */
import type { LoggedBatch, WriteQueue } from '../engine/index.js';
import type { StreamBounds } from './snapshot-store.js';

/** The database as a cluster node uses it (the engine's Database is one). */
export interface ClusterDatabase {
  readonly state: { readonly seq: number };
  readonly queue: WriteQueue;
  /** The data directory (undefined for a memory-only database, which a cluster refuses). */
  readonly dataDir: string | undefined;
  readonly replication: { readonly nodeId: string };
  readLog(afterSeq: number, limit: number): Promise<{ batches: LoggedBatch[] }>;
  onCommit(listener: () => void): void;
  onSnapshot(listener: (written: { name: string; seq: number }) => void): void;
  close(): Promise<void>;
}

export interface ClusterOptions {
  /** NATS server URLs (`nats://host:4222`); the client reconnects among them. */
  readonly servers: readonly string[];
  /** The cluster's name: every node of one cluster uses the same (it names the stream). */
  readonly name: string;
  /** The URL clients reach this node at: writes sent to a replica are redirected to the primary's. */
  readonly advertiseUrl: string;
  /** How long a primary's lease lasts without renewal (failover takes at most about this long). */
  readonly leaseTtlMs: number;
  /** When the stream's messages that the stored snapshot covers are purged. */
  readonly streamBounds: StreamBounds;
  /** The clock the lease is counted on (tests). */
  readonly now?: () => number;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;
export const DEFAULT_STREAM_BOUNDS: StreamBounds = { maxBytes: 1024 * 1024 * 1024, maxAgeMs: 24 * 3600 * 1000 };

export type ClusterRole = 'primary' | 'replica' | 'fenced';

/** GET /api/health's `cluster`. */
export interface ClusterStatus {
  readonly name: string;
  readonly role: ClusterRole;
  readonly node_id: string;
  /** The primary's advertised URL; null while none is known. */
  readonly primary_url: string | null;
  /** The seq of the last batch this node applied (the stream sequence of its message). */
  readonly applied_seq: number;
  /** Batches in the cluster's log this node has not applied yet (0 on the primary). */
  readonly lag: number;
  readonly lease_ttl_ms: number;
  readonly stream: string;
  readonly stream_replicas: number;
  /** On the primary: batches committed and not yet acknowledged by the stream (the asynchronous modes). */
  readonly unpublished: number;
}

export type ClusterLogger = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, cause?: unknown) => void;
