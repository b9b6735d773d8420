/**
 * The per-request context handed to procedures: the caller, the session its
 * statements run in, and the few services procedures call, each typed as
 * the procedures use it (never the whole database, never the transport's
 * request or response objects). The composition root (server.ts) builds the
 * services; the engine's own objects satisfy these interfaces as they are.
 */
import type {
  ApiKeyRecord,
  Caller,
  ChangeNotifier,
  Clock,
  DurabilityMode,
  IsolationLevel,
  LockMechanism,
  parseKeyRequest,
  Pattern,
  Query,
  RecoveryReport,
  SchemaChange,
  SchemaDefinition,
  Session,
  Settings,
  ShippedBatch,
  StorageStatus,
  TransactionStatus,
  TrashPage,
  Value,
  indexDefs,
} from '../../engine/index.js';
import type { StoredFunctions } from '../../functions/index.js';
import type { ChatService } from '../../chat/index.js';
import type { Workflow } from '../../workflow/index.js';
import type { Principal } from '../auth/principal.js';
import type { TokenService } from '../auth/tokens.js';
import type { AuthFailureLimiter } from '../auth/auth-failures.js';
import type { ServerLog } from '../log/server-log.js';
import type { RippleManager } from '../ripple/ripple-manager.js';
import type { ServerMetrics } from '../metrics/index.js';
import type { BatchGate } from './records/batch-gate.js';
import type { ClusterStatus } from '../../cluster/index.js';

export type { Principal, TokenGrant } from '../auth/principal.js';

/** Opens the statement interface for a caller: auto-commit, or inside a transaction the caller owns (else NotFound). */
export interface SessionOpener {
  session(caller: Caller | undefined, transactionId?: string): Session;
}

/** The run-time settings: the effective values, and a durable patch (GET and PUT /api/config). */
export interface SettingsStore {
  settings(): Settings;
  updateSettings(patch: Partial<Settings>): Promise<Settings>;
}

/** Read-only mode after a storage failure: the gate refuses writes with `refuse()` while `readOnly`. */
export interface StorageState {
  readonly readOnly: boolean;
  /** The failure that made the engine read-only, while it is. */
  readonly cause: { readonly message: string } | undefined;
  status(): StorageStatus;
  refuse(): Error;
}

/**
 * What an admin's health answer adds: how writes are kept, the data directory's lock, what recovery dropped, search
 * index builds.
 */
export interface DataHealth {
  /** The log's durability mode, or `memory` when nothing is written to disk. */
  readonly durability: DurabilityMode | 'memory';
  readonly lockMechanism: LockMechanism;
  readonly recovery: RecoveryReport;
  readonly search: { status(): ReadonlyArray<{ readonly state: string }> };
}

export interface Snapshots {
  /** Writes a snapshot now (writes go on meanwhile). */
  snapshot(): Promise<{ name: string; seq: number; bytes: number }>;
  /** Captures a backup now: its seq at once, its bytes as they are read (writes go on meanwhile). */
  backup(source: { version: string }): Promise<{ readonly seq: number; readonly chunks: AsyncIterable<Buffer> }>;
}

type KeyRequest = ReturnType<typeof parseKeyRequest>;

/** API key management (admin routes). */
export interface KeyAdmin {
  create(req: KeyRequest): Promise<{ key: string; record: ApiKeyRecord }>;
  list(): ApiKeyRecord[];
  update(id: string, req: KeyRequest): Promise<ApiKeyRecord>;
  revoke(id: string): Promise<void>;
  /** Whether the bootstrap admin key is stored: not yet while the server starts (server-bootstrap.ts). */
  hasAdmin(): boolean;
}

/** What GET /api/collections/{c} shows of a collection. */
export interface CollectionInfo {
  readonly name: string;
  readonly record_count: number;
  readonly created_at: string;
  readonly schema: Record<string, unknown>;
}

/** Collections, their schemas, primary-key aliases and query indexes. */
export interface CollectionAdmin {
  list(excludeInternal: boolean): string[];
  create(name: string, definition: SchemaDefinition): Promise<void>;
  info(name: string): Promise<CollectionInfo>;
  drop(name: string): Promise<void>;
  schema(name: string): Record<string, unknown>;
  updateSchema(name: string, change: SchemaChange): Promise<{ readonly version: number }>;
  setPrimaryKeyAlias(name: string, alias: string): Promise<string>;
  /** The collection's metadata, as `indexDefs` lists its query indexes. */
  meta(name: string): Parameters<typeof indexDefs>[0];
  createIndex(name: string, def: { field: string; type: 'btree' | 'hash' }): Promise<object>;
  dropIndex(name: string, field: string): Promise<void>;
}

/** Deleted records kept for restore. */
export interface TrashAdmin {
  count(collection: string): number;
  list(collection: string, limit: number, skip: number): TrashPage;
  restore(collection: string, id: string): Promise<void>;
  restoreAll(collection: string): Promise<number>;
}

/** The live query indexes of a collection, by field, with their entry counts. */
export interface QueryIndexes {
  indexes(collection: string): ReadonlyMap<string, { readonly size: number }>;
}

/** How a find would run a query, with the counts it saw (POST /api/query/{c}/explain). */
export interface QueryPlanner {
  explain(collection: string, query: Query): Promise<Record<string, unknown>>;
}

/** A key-value entry as a find lists it (`expires_at` in RFC 3339). */
export interface KvEntry {
  readonly key: string;
  readonly value: Value;
  readonly expires_at?: string;
}

/** The key-value store: durable on return, never part of a transaction. */
export interface KvService {
  set(key: string, wireValue: unknown, ttl?: unknown, bypassRipple?: boolean): Promise<void>;
  get(key: string): Value;
  delete(key: string, bypassRipple?: boolean): Promise<boolean>;
  clear(): Promise<number>;
  batchGet(keys: readonly string[]): unknown[];
  batchSet(keys: readonly string[], wireValues: readonly unknown[], ttl?: unknown): Promise<Array<[string, boolean]>>;
  batchDelete(keys: readonly string[]): Promise<Array<[string, boolean]>>;
  /**
   * Entries whose key matches `pattern` (every key when undefined), in key order; `page` keeps the keys `keep`
   * accepts that sort after `after`, at most `limit` of them.
   */
  find(
    pattern: Pattern | undefined,
    includeExpired: boolean,
    page?: { after?: string; limit?: number; keep?: (key: string) => boolean },
  ): Promise<KvEntry[]>;
  link(key: string, collection: string, recordId: string, unlink?: boolean): Promise<void>;
  links(key: string): Array<{ collection: string; document_id: string }>;
}

/** Beginning and listing transactions; their statements run through the session the gate opens. */
export interface TransactionAdmin {
  begin(
    level: IsolationLevel | undefined,
    timeoutSecs: number | undefined,
    owner?: string,
  ): {
    readonly id: string;
    readonly level: IsolationLevel;
    readonly createdAt: number;
    readonly timeoutSecs: number;
  };
  list(caller?: Caller): TransactionStatus[];
}

/** The audit trail of committed transactions. */
export interface AuditTrail {
  read(opts: { limit?: number; transactionId?: string }): Promise<Array<Record<string, unknown>>>;
}

/** This node as a ripple peer: batches shipped by other nodes are applied here once each. */
export interface ReplicationTarget {
  readonly nodeId: string;
  applyRemote(batch: ShippedBatch): Promise<'applied' | 'duplicate' | 'own'>;
}

/** The services the engine provides (server.ts `engineServices` takes them from the opened database). */
export interface EngineServices {
  readonly sessions: SessionOpener;
  readonly config: SettingsStore;
  /** The engine's injectable clock. */
  readonly clock: Clock;
  readonly storage: StorageState;
  readonly health: DataHealth;
  readonly snapshots: Snapshots;
  readonly keys: KeyAdmin;
  readonly collections: CollectionAdmin;
  readonly trash: TrashAdmin;
  readonly indexes: QueryIndexes;
  readonly planner: QueryPlanner;
  readonly kv: KvService;
  readonly transactions: TransactionAdmin;
  readonly audit: AuditTrail;
  readonly replication: ReplicationTarget;
}

/** The clock of a test server as the wire shows it. */
export interface TestClockView {
  readonly now: string;
  readonly frozen: boolean;
}

/**
 * What a test server lets tests do by URL (lib/testing implements it). Each
 * call comes from a request, which the waits for requests in flight skip.
 */
export interface TestControl {
  reset(): Promise<void>;
  /** Takes a checkpoint and names it. */
  checkpoint(): Promise<string>;
  restore(id: string): Promise<void>;
  clock(): TestClockView;
  moveClock(move: {
    readonly advance?: string | number;
    readonly set?: string | number;
    readonly freeze?: boolean;
  }): Promise<TestClockView>;
}

/** A cluster node as procedures and the dispatcher use it (lib/cluster's ClusterNode). */
export interface ClusterService {
  status(): ClusterStatus;
  /** The seq of the last batch this node applied. */
  readonly appliedSeq: number;
  /** Throws NotPrimary (307) or Unavailable (503) unless this node is the primary. */
  admitWrite(): void;
  /** Resolves once this node has applied `seq`; rejects with Timeout after `timeoutMs`. */
  waitForSeq(seq: number, timeoutMs: number): Promise<void>;
}

export interface Services extends EngineServices {
  readonly tokens: TokenService;
  /** The server's logger (log/server-log.ts): `extra` is an Error (the cause) or structured fields. */
  readonly log: ServerLog;
  readonly startedAt: number;
  readonly batchGate: BatchGate;
  readonly ripples: RippleManager;
  /** Failed token exchanges per client address (brute-force protection). */
  readonly authFailures: AuthFailureLimiter;
  /** Subscriptions to committed changes (stream procedures). */
  readonly changes: ChangeNotifier;
  /** Stored functions: definitions and calls. */
  readonly functions: StoredFunctions;
  /** Chat sessions and messages (retrieval, provider calls through the provider directory). */
  readonly chat: ChatService;
  /** Goals, goal templates, tasks, agents and schedules. */
  readonly workflow: Workflow;
  /** Reset, checkpoints and the clock over the wire: set only on a test server (procedures/testing.ts). */
  readonly testing: { control: TestControl | undefined };
  /** The server's own state as the readiness probe reads it: `closing` once close() has begun. */
  readonly lifecycle: { closing: boolean };
  /** The server's Prometheus metrics (lib/http/metrics). */
  readonly metrics: ServerMetrics;
  readonly version: string;
  /** This node's cluster, when it is one of a cluster's (`--cluster`); undefined on a single node. */
  readonly cluster?: ClusterService;
}

export interface Context extends Services {
  readonly principal: Principal | undefined;
  readonly requestId: string;
  /** Typed (`{type, value}`) or bare record output, from the `use_typed_values` setting. */
  readonly typed: boolean;
  /** Where an HTTP request came from (client-address.ts); undefined on other transports. */
  readonly clientAddress: string | undefined;
  /** Where statements run (auto-commit, or the procedure's transaction): set by the gate in callProcedure. */
  session: Session;
  /** Fires when the caller is gone or cancelled (a stream's client closed or unsubscribed); never for one answer. */
  readonly signal: AbortSignal;
}
