/**
 * The composition root: builds a Database from a ServerConfig, wires the
 * procedures, the dispatcher and the fastify transport, bootstraps the admin
 * key, and schedules maintenance (trash purge and snapshots on CronTimers on the
 * engine's clock, TTL sweeps on an interval). It builds the server's logger
 * (log/server-log.ts), logs storage events, warns about a data directory others
 * can read, and logs one startup summary once listening. `close()` shuts everything down cleanly.
 * Memory-only (`memory: true`), nothing is written to disk: no data directory
 * to check, and a generated admin key is announced without a file.
 */
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { StoredFunctions } from '../functions/index.js';
import { outboundPolicy } from '../outbound/index.js';
import {
  ChatService,
  embedderFor,
  functionAi,
  SettingsProviderDirectory,
  type ProviderDirectory,
} from '../chat/index.js';
import { Scheduler, Workflow } from '../workflow/index.js';
import {
  ChangeNotifier,
  checkDataDirPrivacy,
  CronSchedule,
  CronTimer,
  Database,
  nodeFs,
  type DatabaseOptions,
  type Clock,
  type Settings,
  type StorageFs,
} from '../engine/index.js';
import { logStorageEvent } from './log/storage-log.js';
import { createServerLog, type LogFormat, type LogThreshold, type ServerLog } from './log/server-log.js';
import { logStartupSummary, type AdminKeySource } from './log/startup-summary.js';
import { TokenService } from './auth/tokens.js';
import { Dispatcher } from './routing/dispatch.js';
import { BatchGate } from './procedures/records/batch-gate.js';
import { AuthFailureLimiter } from './auth/auth-failures.js';
import { RippleManager } from './ripple/ripple-manager.js';
import { CredentialWatch, CREDENTIAL_CHECK_MS } from './auth/credential-watch.js';
import { attachWebSocket } from './transport/ws.js';
import type { WebSocketServer } from 'ws';
import { createRegistry } from './procedures/index.js';
import { createFastify } from './transport/fastify.js';
import type { TlsCredentials } from './transport/node-server.js';
import { ServerCheckpoints } from './server-checkpoints.js';
import { bootstrapAdmin, indexChatMessages } from './server-bootstrap.js';
import { checkClusterConfig, clusterTokens, openClustered, runCluster } from './server-cluster.js';
import type { ClusterNode, ClusterOptions } from '../cluster/index.js';
import { meteredProviders, ServerMetrics } from './metrics/index.js';
import { CloseProgress, HttpDrain } from './server-close.js';
import type { EngineServices, Services, TestControl } from './procedures/context.js';

export const VERSION = '0.1.0';

/**
 * Where a server keeps its data: a data directory (log, snapshots, secrets),
 * or nothing on disk at all (`memory: true`: everything is gone at close;
 * `fs`, `salvage`, `lockWaitMs`, `snapshotBytes` and the heal options then
 * have no effect, and ripple peers are refused).
 */
export type ServerStorage = { memory: true; dataDir?: undefined } | { memory?: false; dataDir: string };

export type ServerConfig = ServerOptions & ServerStorage;

/** Everything a server takes besides where it keeps its data (ServerStorage). */
export interface ServerOptions {
  port: number;
  host: string;
  /** Serve HTTPS and WSS on the port with this PEM certificate and key (reloadTls() swaps them); default plain HTTP. */
  tls?: TlsCredentials;
  /** Admin key from the environment; generated on first start when absent. */
  adminKey?: string;
  /** Server defaults for run-time settings (PUT /api/config overrides them). */
  settings?: Partial<Settings>;
  /**
   * Record ids from this seed (tests): the same seed makes the same ids in the same order, and a checkpoint
   * restored puts the id sequence back too.
   */
  idSeed?: string;
  bodyLimitBytes?: number;
  clock?: Clock;
  fs?: StorageFs;
  snapshotBytes?: number;
  /**
   * Cron expressions (lib/engine/time/cron.ts) on the process's local time zone; empty string disables. A bad one
   * throws.
   */
  snapshotCron?: string;
  trashPurgeCron?: string;
  ttlSweepMs?: number;
  /**
   * How often the scheduler looks for due schedules on the engine's clock (default 250 ms; 0: only when
   * `scheduler.tick()` is called, as specs on a ManualClock do).
   */
  schedulerTickMs?: number;
  /** Fire schedules on this server (default true; false serves their routes only, e.g. on all but one ripple peer). */
  runSchedules?: boolean;
  /**
   * How long close() waits for schedule runs in progress (default 5000 ms); a run cut short is recorded as interrupted
   * at the next start.
   */
  schedulerStopGraceMs?: number;
  /**
   * How long close() lets the requests in flight finish before it cuts their connections (default 0: at once); it
   * stops accepting connections first, and every answer meanwhile closes its connection.
   */
  drainMs?: number;
  /** Be a node of this cluster over NATS JetStream (docs/cluster.md); needs a data directory. */
  cluster?: ClusterOptions;
  /** Replication peers (ripples): each peer's base URL and an admin API key valid there. */
  ripplePeers?: ReadonlyArray<{ url: string; key: string }>;
  /** Heartbeat interval of SSE subscriptions. */
  sseHeartbeatMs?: number;
  /** A WebSocket or SSE subscriber with more unsent bytes than this is dropped. */
  maxQueuedBytes?: number;
  /** How often (real ms) open WebSocket and SSE connections are re-checked for token expiry and key changes. */
  credentialCheckMs?: number;
  /** Largest WebSocket frame answered normally (larger ones get an Error). */
  maxWsMessageBytes?: number;
  /** Longest wait between retries to a peer that is down. */
  rippleMaxBackoffMs?: number;
  /** Where the generated admin key is announced (stdout by default, never through the logger). */
  announce?: (msg: string) => void;
  /** Lowest level logged: trace, debug, info (default), warn, error, fatal, or silent for nothing. */
  logLevel?: LogThreshold;
  /** One info line per HTTP request: method, route pattern, status, latency, request id, bytes (default false). */
  accessLog?: boolean;
  /** `json` (pino's JSON lines, the default) or `text` (one readable line per entry). */
  logFormat?: LogFormat;
  /**
   * Generate a missing admin key in listen(), once the port is bound, instead
   * of in create(): a start that cannot bind then writes and prints no key.
   * The CLI sets it; an embedder that never calls listen() leaves it off.
   */
  adminKeyAfterListen?: boolean;
  /** Log warnings and errors only (raises `logLevel` to warn). */
  quiet?: boolean;
  /** Where the JSON or text lines are written (default stdout), e.g. a file stream. */
  logStream?: { write(line: string): unknown };
  /**
   * Receives every line at or above `logLevel` instead of stdout (`quiet`, `logFormat` and `logStream` then have no
   * effect).
   */
  logger?: ServerLog;
  /** After a storage failure: first repair attempt after this long (default 1 s), then doubling... */
  healRetryMs?: number;
  /** ...up to this long between attempts (default 30 s). */
  healRetryMaxMs?: number;
  /** While read-only, one summary line of refused writes per this interval (default 60 s). */
  readOnlySummaryMs?: number;
  /**
   * Start from what is readable when damaged files would stop a normal start
   * (`--salvage`, EDDYDB_SALVAGE=1); see lib/engine/FORMAT.md, Salvage.
   */
  salvage?: boolean;
  /**
   * How long to wait for another process's hold on the data directory before refusing (default 10 s; `--lock-wait`).
   */
  lockWaitMs?: number;
  /** Failed token exchanges allowed per client address and window before 429 (default 10; 0 turns the limit off). */
  authFailureLimit?: number;
  /** Length of that window in seconds (default 60). */
  authFailureWindowSecs?: number;
  /** Behind a reverse proxy: take the client address from the last X-Forwarded-For entry (default false). */
  trustProxy?: boolean;
  /** Also serve GET /metrics without a token on this port (default: no metrics port; the API's needs an admin). */
  metricsPort?: number;
  /** Where the metrics port listens (default `127.0.0.1`: this machine only). */
  metricsHost?: string;
  /**
   * Environment variables stored functions may read as `{{env.NAME}}`
   * (`EDDYDB_FUNCTION_ENV`), besides the setting `function_env_allowlist`.
   */
  functionEnv?: readonly string[];
  /** Where `{{env.NAME}}` values come from (default `process.env`; tests pass their own). */
  functionEnvVariables?: Readonly<Record<string, string | undefined>>;
  /**
   * The LLM providers chat sessions call (default: none configured, every chat provider is `provider_not_configured`).
   */
  providers?: ProviderDirectory;
}

export class Server {
  readonly dispatcher: Dispatcher;
  private readonly app: FastifyInstance;
  /** The maintenance timers on the engine's clock; specs on a ManualClock move the clock and call their `tick()`. */
  readonly maintenance: { trashPurge?: CronTimer; snapshots?: CronTimer } = {};
  private closing: Promise<void> | undefined;
  /** The steps of close() still running, for pendingClose(). */
  private readonly closeProgress = new CloseProgress();
  /** Lets close() wait for the answers under way (`drainMs`). */
  private readonly httpDrain: HttpDrain;

  readonly ripples: RippleManager;
  /** The engine's change subscriptions that SSE and WebSocket streams read. */
  readonly notifier: ChangeNotifier;
  /** Re-checks the credentials of open WebSocket and SSE connections. */
  readonly credentialWatch: CredentialWatch;
  private readonly wss: WebSocketServer;
  /** The server's logger (log/server-log.ts). */
  readonly log: ServerLog;
  /** Fires the stored schedules (lib/workflow/scheduler.ts). */
  readonly scheduler: Scheduler;
  /** Stored functions: closed with the server (their bcrypt worker threads). */
  private readonly functions: StoredFunctions;
  /** Checkpoints of the whole server (test fixtures): taken in O(1), restored by undoing the changes since. */
  readonly checkpoints: ServerCheckpoints;
  /** Where the test control the wire serves is set (serveTestControl). */
  private readonly testing: Services['testing'];
  /** What the readiness probe reads of this server (GET /api/health/ready). */
  private readonly lifecycle: Services['lifecycle'];
  /** The Prometheus metrics (lib/http/metrics): GET /metrics, and the metrics port when configured. */
  readonly metrics: ServerMetrics;

  private constructor(
    readonly db: Database,
    readonly config: ServerConfig,
    services: Services,
    /** What opening learned, for the startup summary. */
    private readonly startup: { readonly recoveryMs: number; adminKey: AdminKeySource | undefined },
    /** Writes log lines still waiting for the end of the event-loop turn (close() calls it). */
    readonly flushLog: () => void,
    credentialWatch: CredentialWatch,
    scheduler: Scheduler,
  ) {
    this.scheduler = scheduler;
    this.testing = services.testing;
    this.lifecycle = services.lifecycle;
    this.metrics = services.metrics;
    this.functions = services.functions;
    this.ripples = services.ripples;
    this.log = services.log;
    this.notifier = services.changes;
    this.credentialWatch = credentialWatch;
    this.dispatcher = new Dispatcher(
      services,
      createRegistry(),
      config.bodyLimitBytes ?? 32 * 1024 * 1024,
      config.trustProxy ?? false,
      config.accessLog ?? false,
    );
    this.dispatcher.requestMetrics = this.metrics.requests;
    this.checkpoints = new ServerCheckpoints({
      db,
      dispatcher: this.dispatcher,
      notifier: this.notifier,
      scheduler,
      authFailures: services.authFailures,
    });
    if (config.idSeed !== undefined) this.checkpoints.include(db.ids);
    const maxQueuedBytes = config.maxQueuedBytes ?? 8 * 1024 * 1024;
    this.dispatcher.streams = {
      watch: this.credentialWatch,
      heartbeatMs: config.sseHeartbeatMs ?? 15_000,
      maxQueuedBytes,
    };
    this.app = createFastify(this.dispatcher, config.tls);
    this.wss = attachWebSocket(this.app.server, this.dispatcher, this.credentialWatch, {
      maxMessageBytes: config.maxWsMessageBytes ?? 16 * 1024 * 1024,
      maxQueuedBytes,
    });
    this.httpDrain = new HttpDrain(this.app.server, this.dispatcher.inFlight);
    const { wss, notifier, ripples } = this;
    this.metrics.watch({
      storage: db,
      ripples,
      connections: () => wss.clients.size,
      subscriptions: () => notifier.count(),
    });
  }

  /**
   * Opens (recovers) the database and wires the server. Throws on a bad log level or format, what node:tls throws for
   * a bad TLS pair, or what Database.open throws.
   */
  static async create(config: ServerConfig): Promise<Server> {
    const { log, flush: flushLog } = createServerLog({
      level: config.logLevel,
      quiet: config.quiet,
      format: config.logFormat,
      sink: config.logger,
      destination: config.logStream,
    });
    if (config.memory && (config.ripplePeers?.length ?? 0) > 0)
      throw new Error('ripples need a data directory; this server is memory-only: drop the ripple peers or memory');
    if (config.cluster) checkClusterConfig(config);
    // Before the data is opened: a bad pair then leaves nothing to close.
    if (config.tls) tls.createSecureContext({ cert: config.tls.cert, key: config.tls.key });
    const opening = performance.now();
    const engineLog: DatabaseOptions['log'] = (m, level, cause) => log(level ?? 'info', m, cause);
    // Made before the data is opened: the engine reports its log appends to it from the start.
    const metrics = new ServerMetrics(VERSION);
    const { clock, settings, idSeed } = config;
    const common = { clock, settings, log: engineLog, idSeed, observe: metrics.storage };
    const { db, cluster } = await openClustered(config.cluster, log, (commitLog) =>
      Database.open(
        config.memory
          ? { memory: true, ...common }
          : {
              ...common,
              commitLog,
              dataDir: config.dataDir,
              fs: config.fs,
              snapshotBytes: config.snapshotBytes,
              salvage: config.salvage,
              lockWaitMs: config.lockWaitMs,
              heal: { firstMs: config.healRetryMs, maxMs: config.healRetryMaxMs, summaryMs: config.readOnlySummaryMs },
            },
      ),
    );
    const recoveryMs = performance.now() - opening;
    db.storage.onEvent((e) => logStorageEvent(log, e));
    let adminKey: AdminKeySource | undefined;
    try {
      if (!config.memory)
        for (const warning of await checkDataDirPrivacy(config.fs ?? nodeFs, config.dataDir)) log('warn', warning);
      // With adminKeyAfterListen a missing key is made in listen(), once the port is bound; on a cluster, by the primary.
      if (!cluster && (config.adminKey || !config.adminKeyAfterListen || db.keys.hasAdmin()))
        adminKey = await bootstrapAdmin(db, config);
    } catch (err) {
      await db.close();
      await cluster?.close();
      throw err;
    }
    const ripples = new RippleManager(db, config.ripplePeers ?? [], config.rippleMaxBackoffMs, log);
    const authFailures = new AuthFailureLimiter(
      { limit: config.authFailureLimit ?? 10, windowSecs: config.authFailureWindowSecs ?? 60 },
      log,
    );
    const tokens = new TokenService(clusterTokens(db, cluster));
    // Built before the change notifier so a commit that revokes a key ends its connections before that commit is fanned
    // out.
    const credentialWatch = new CredentialWatch(db, tokens, config.credentialCheckMs ?? CREDENTIAL_CHECK_MS);
    const changes = new ChangeNotifier(db);
    // Chat sessions and the Chat and Embed function steps use the providers configured in the settings (keys and URLs
    // from the environment or PUT /api/config); tests may pass their own.
    const providers = meteredProviders(
      config.providers ?? new SettingsProviderDirectory(() => db.settings()),
      metrics.chat,
    );
    const functions = new StoredFunctions(db, {
      warn: (msg, cause) => log('warn', msg, cause),
      environment: { allow: config.functionEnv ?? [], variables: config.functionEnvVariables ?? process.env },
      ai: functionAi(providers, (model) => embedderFor(db.settings(), model)),
      observe: metrics.functions,
    });
    const workflow = new Workflow(() => db.now());
    const chat = new ChatService({
      providers,
      embedder: () => embedderFor(db.settings()),
      now: () => db.now(),
      indexMessages: () => indexChatMessages(db),
      agents: workflow.agents,
    });
    const services: Services = {
      ...engineServices(db),
      tokens,
      log,
      startedAt: Date.now(),
      version: VERSION,
      batchGate: new BatchGate(),
      ripples,
      authFailures,
      changes,
      functions,
      chat,
      workflow,
      testing: { control: undefined },
      lifecycle: { closing: false },
      metrics,
      cluster,
    };
    const scheduler = new Scheduler({
      schedules: workflow.schedules,
      session: () => db.session(undefined),
      now: () => db.now(),
      callFunction: (label, parameters) => functions.call(label, parameters),
      outbound: () => outboundPolicy(db.settings()),
      warn: (msg, cause) => log('warn', msg, cause),
      ran: (outcome) => metrics.schedules.ran(outcome),
    });
    const server = new Server(db, config, services, { recoveryMs, adminKey }, flushLog, credentialWatch, scheduler);
    server.schedule();
    // Settles the runs missed while the server was down (each schedule's missed_runs), then ticks; on a cluster, on
    // the primary only.
    if (cluster) (server.cluster = cluster).attach(db);
    else if (config.runSchedules ?? true) await scheduler.start(config.schedulerTickMs ?? 250);
    return server;
  }

  /** This node's cluster (`cluster` option); undefined on a single node. */
  cluster: ClusterNode | undefined;

  /** A cluster node became the primary: it now bootstraps the admin key and fires the schedules. */
  async becamePrimary(): Promise<void> {
    this.startup.adminKey ??= await bootstrapAdmin(this.db, this.config);
    if (this.config.runSchedules ?? true) await this.scheduler.start(this.config.schedulerTickMs ?? 250);
  }

  /** A cluster node is no longer the primary: schedules fire elsewhere. */
  async becameReplica(): Promise<void> {
    await this.scheduler.stop(this.config.schedulerStopGraceMs ?? 5000);
  }

  /**
   * Starts listening, then generates the admin key if create() left that to it and logs the startup summary; resolves
   * with the bound port (useful with port 0).
   */
  async listen(): Promise<number> {
    await this.app.listen({ port: this.config.port, host: this.config.host });
    const { metricsPort, metricsHost } = this.config;
    if (metricsPort !== undefined) await this.metrics.listen(metricsPort, metricsHost ?? '127.0.0.1', this.log);
    if (!this.cluster) this.startup.adminKey ??= await bootstrapAdmin(this.db, this.config);
    else runCluster(this.cluster, this, this.url, this.config.cluster!.advertiseUrl);
    const addr = this.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : this.config.port;
    logStartupSummary(this.log, this.db, {
      version: VERSION,
      host: this.config.host,
      port,
      recoveryMs: this.startup.recoveryMs,
      adminKey: this.startup.adminKey ?? 'stored',
      isTls: this.isTls,
    });
    return port;
  }

  /** `https://127.0.0.1:PORT` when serving TLS, else `http://...`. */
  get url(): string {
    const addr = this.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : this.config.port;
    return `${this.isTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  /** The server speaks HTTPS and WSS (`tls` was configured). */
  get isTls(): boolean {
    return this.app.server instanceof tls.Server;
  }

  /**
   * Serves new connections with these credentials (a renewed certificate);
   * open connections, keep-alive and WebSocket alike, go on with the ones
   * they were made with. Throws, changing nothing, when the server was
   * started without TLS or node:tls refuses the pair (not PEM, or a key that
   * does not match the certificate).
   */
  reloadTls(credentials: TlsCredentials): void {
    const server = this.app.server;
    if (!(server instanceof tls.Server)) throw new Error('this server was started without TLS: nothing to reload');
    // setSecureContext keeps the old context on failure but not the old fields it copies: check the pair first.
    tls.createSecureContext({ cert: credentials.cert, key: credentials.key });
    server.setSecureContext({ cert: credentials.cert, key: credentials.key });
  }

  /** The underlying node HTTP server (the WebSocket transport attaches here). */
  get httpServer() {
    return this.app.server;
  }

  private schedule(): void {
    const now = () => this.db.now();
    const purge = this.config.trashPurgeCron ?? '17 3 * * *';
    // A memory-only database has nothing to snapshot.
    const snap = this.db.memory ? '' : (this.config.snapshotCron ?? '0 * * * *');
    // The operator's wall clock, as for cron on the host (read only when a timer needs it: the first look costs ICU's
    // time zone data).
    const zone = purge || snap ? Intl.DateTimeFormat().resolvedOptions().timeZone : 'UTC';
    if (purge) {
      this.maintenance.trashPurge = new CronTimer(
        CronSchedule.parse(purge, zone),
        now,
        () => this.db.trash.purgeExpired(),
        (e) => this.log('error', 'trash purge failed', e),
      );
    }
    if (snap) {
      this.maintenance.snapshots = new CronTimer(
        CronSchedule.parse(snap, zone),
        now,
        () => this.db.snapshot(),
        (e) => this.db.logSnapshotFailure('scheduled snapshot', e),
      );
    }
    for (const timer of Object.values(this.maintenance)) timer.start();
    const sweep = this.config.ttlSweepMs ?? 1000;
    if (sweep > 0) this.db.records.expiry.start(sweep);
    this.db.transactions.startCleanup();
  }

  /** Serves reset, checkpoints and the clock over the wire (procedures/testing.ts): for test servers only. */
  serveTestControl(control: TestControl): void {
    this.testing.control = control;
  }

  /**
   * Runs now what the engine's clock says is due, and resolves when it is
   * done: the TTL sweeps of records and key-value entries, the purge of
   * trash past its retention, the maintenance timers and the schedules. For a clock moved by
   * hand (a test server's), so a test never waits for the next real tick.
   */
  async runDueWork(): Promise<void> {
    await this.db.records.expiry.sweep();
    await this.db.trash.purgeExpired();
    for (const timer of Object.values(this.maintenance)) await timer.tick();
    if (this.config.runSchedules ?? true) await this.scheduler.tick();
  }

  /**
   * Stops accepting requests; lets the requests in flight finish (at most `drainMs`) while the schedule runs in
   * progress finish (at most `schedulerStopGraceMs`); cuts the connections left; waits for in-flight writes, snapshots
   * and closes the log. Unbounded only in the final snapshot, which takes as long as the data: a caller that must stop
   * by a deadline races it and reads pendingClose() (lib/cli/start.ts).
   */
  close(): Promise<void> {
    this.lifecycle.closing = true;
    const step = <T>(describe: () => string | undefined, work: Promise<T>) => this.closeProgress.step(describe, work);
    this.closing ??= (async () => {
      for (const timer of Object.values(this.maintenance)) timer.stop();
      this.ripples.stop();
      this.credentialWatch.stop();
      for (const client of this.wss.clients) client.terminate();
      this.wss.close();
      // Before waiting for requests in flight: a hash still running answers 503 now instead of holding the stop.
      await step(() => 'the bcrypt worker threads', this.functions.close());
      await Promise.all([
        step(
          () => listed('schedule runs in progress', this.scheduler.inProgress()),
          this.scheduler.stop(this.config.schedulerStopGraceMs ?? 5000),
        ),
        step(() => this.httpDrain.describe(), this.httpDrain.drain(this.config.drainMs ?? 0)),
      ]);
      await step(() => 'closing the HTTP connections', this.app.close());
      await this.metrics.close();
      // The writes under way reach the cluster's log before the lease is given up (a replica takes over at once).
      if (this.cluster) await step(() => "the cluster's log and lease", this.cluster.close());
      await step(
        () => 'the final snapshot (after the writes still queued) and the log',
        this.db.close({ snapshot: true }),
      );
      this.flushLog();
    })();
    return this.closing;
  }

  /**
   * What a close() in progress still waits for, one phrase a step ("requests in flight: POST /api/functions/slow
   * (running 2013 ms)"); empty before close() and once it is done.
   */
  pendingClose(): string[] {
    return this.closeProgress.pending();
  }
}

/** `what: a, b`, or undefined when `items` is empty (nothing of that kind is pending). */
function listed(what: string, items: readonly string[]): string | undefined {
  return items.length === 0 ? undefined : `${what}: ${items.join(', ')}`;
}

/**
 * The engine's services as procedures reach them: each one the engine
 * object that provides it, typed as the procedures use it (context.ts).
 */
export function engineServices(db: Database): EngineServices {
  return {
    sessions: db,
    config: db,
    clock: db,
    storage: db.storage,
    health: db,
    snapshots: db,
    keys: db.keys,
    collections: db.collections,
    trash: db.trash,
    indexes: db.indexes,
    planner: db.records,
    kv: db.kv,
    transactions: db.transactions,
    audit: db.audit,
    replication: db.replication,
  };
}
