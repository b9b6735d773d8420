/**
 * `startTestServer`: an EddyDB server in the calling process, for an
 * application's own tests. Memory only unless asked to persist, on an
 * ephemeral port, with a clock the test moves, fixtures seeded at start, and
 * a reset back to the state right after seeding that costs the changes the
 * test made, not the size of the data. Servers share nothing: one per test
 * file or worker, each its own port, clock and state.
 */
import { randomBytes } from 'node:crypto';
import { toJson, type Settings } from '../engine/index.js';
import type { ProviderDirectory } from '../chat/index.js';
import { InvalidInput, NotFound } from '../errors.js';
import {
  Server,
  type LogThreshold,
  type ServerCheckpoint,
  type TestClockView,
  type TestControl,
} from '../http/index.js';
import { checkSeed, readSeedFolder, SeedError, type CheckedSeed, type Seed } from './seed.js';
import { TestClock, type TestClockOptions } from './test-clock.js';

export interface TestServerOptions {
  /**
   * Keep the data in this directory (log, snapshots; survives a restart on it). Default: memory only. The seed
   * goes into a fresh directory only; one that holds data starts with it.
   */
  readonly persist?: string;
  /** Fixtures to start with: an object, or the path of a seed folder (see seed.ts). */
  readonly seed?: Seed | string;
  /** Where the clock starts, and whether it is frozen (default: real time, running). */
  readonly clock?: TestClockOptions;
  /** Make record ids from this seed: the same test makes the same ids, run after run (and after each reset). */
  readonly ids?: string;
  /** The admin API key (default: a random one). */
  readonly adminKey?: string;
  /** Server defaults for run-time settings (PUT /api/config overrides them, a reset puts them back). */
  readonly settings?: Partial<Settings>;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Lowest log level printed (default silent: a test's output stays its own). */
  readonly logLevel?: LogThreshold;
  /** The chat providers (default: the settings', which are none: chat answers from the offline `local` provider). */
  readonly providers?: ProviderDirectory;
  /** How long reset and restore wait for requests in flight before failing with their names (default 5000 ms). */
  readonly resetTimeoutMs?: number;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>`: the URL the clients take. */
  readonly url: string;
  /** `ws://127.0.0.1:<port>/api/ws`. */
  readonly wsUrl: string;
  readonly port: number;
  readonly adminKey: string;
  readonly clock: TestClock;
  /** The server itself, for what this interface does not cover. */
  readonly server: Server;
  /** A bearer token for `apiKey` (default: the admin key), as POST /api/auth/token gives it. */
  token(apiKey?: string): Promise<string>;
  /** Back to the state right after start and seeding: records, key-value, keys, settings, functions, the clock. */
  reset(): Promise<void>;
  /** Captures the state now; O(1) in the number of records. */
  checkpoint(): Promise<ServerCheckpoint>;
  /** Back to a checkpoint of this server. Checkpoints taken after it are discarded. */
  restore(checkpoint: ServerCheckpoint): Promise<void>;
  /** Stops the server; a second close is an error (it usually means two owners think they hold it). */
  close(): Promise<void>;
}

/** Starts a test server; resolves once it listens and the seed is in. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const seed = await loadSeed(options.seed);
  const clock = new TestClock(options.clock);
  const adminKey = options.adminKey ?? `eddy_test_${randomBytes(18).toString('base64url')}`;
  const common = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    adminKey,
    clock,
    settings: options.settings,
    logLevel: options.logLevel ?? 'silent',
    providers: options.providers,
    idSeed: options.ids,
    announce: () => undefined,
    // The test clock runs the sweeps, the trash purge and the schedules when it is moved (Server.runDueWork), so no
    // wall-clock maintenance timer is armed; real-time sweeps still serve a running clock.
    ttlSweepMs: 1000,
    trashPurgeCron: '',
    snapshotCron: '',
  };
  const server = await Server.create(
    options.persist === undefined ? { ...common, memory: true } : { ...common, dataDir: options.persist },
  );
  try {
    const port = await server.listen();
    clock.catchUp = () => server.runDueWork();
    server.checkpoints.include(clock);
    const fixture = new Fixture(server, port, adminKey, clock, options.resetTimeoutMs ?? 5000);
    // A persisted directory that already holds data keeps it: the seed went in when it was fresh.
    const recovered = server.db.recovery;
    if (recovered.snapshot === null && recovered.replayedBatches === 0) await fixture.seed(seed);
    fixture.markStart();
    server.serveTestControl(fixture.wireControl());
    return fixture;
  } catch (err) {
    await server.close();
    throw err;
  }
}

async function loadSeed(seed: Seed | string | undefined): Promise<CheckedSeed | undefined> {
  if (seed === undefined) return undefined;
  return typeof seed === 'string' ? readSeedFolder(seed) : checkSeed(seed);
}

/** Records per insert while seeding: large fixtures go in as several all-or-nothing statements. */
const SEED_CHUNK = 10_000;

class Fixture implements TestServer {
  readonly url: string;
  readonly wsUrl: string;
  private start: ServerCheckpoint | undefined;
  private closed = false;

  constructor(
    readonly server: Server,
    readonly port: number,
    readonly adminKey: string,
    readonly clock: TestClock,
    private readonly resetTimeoutMs: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.wsUrl = `ws://127.0.0.1:${port}/api/ws`;
  }

  async token(apiKey = this.adminKey): Promise<string> {
    const answer = await this.request('POST', '/api/auth/token', undefined, { api_key: apiKey });
    return (answer as { token: string }).token;
  }

  markStart(): void {
    this.start = this.server.checkpoints.take();
  }

  async reset(): Promise<void> {
    this.open('reset');
    await this.server.checkpoints.restore(this.start!, this.resetTimeoutMs);
  }

  async checkpoint(): Promise<ServerCheckpoint> {
    this.open('checkpoint');
    await this.server.dispatcher.inFlight.idle(this.resetTimeoutMs, 'taking a checkpoint');
    return this.server.checkpoints.take();
  }

  async restore(checkpoint: ServerCheckpoint): Promise<void> {
    this.open('restore');
    await this.server.checkpoints.restore(checkpoint, this.resetTimeoutMs);
  }

  async close(): Promise<void> {
    if (this.closed)
      throw new Error('this test server is already closed: close it once (in one after/afterAll hook), not per test');
    this.closed = true;
    await this.server.close();
  }

  /**
   * Reset, checkpoints and the clock as the wire serves them (POST /api/testing/reset...), for tests that
   * reach this server by URL alone. Each call is itself a request in flight, which the waits skip.
   */
  wireControl(): TestControl {
    const named = new Map<string, ServerCheckpoint>();
    let next = 0;
    const restore = async (checkpoint: ServerCheckpoint) => {
      await this.server.checkpoints.restore(checkpoint, this.resetTimeoutMs, 1);
      for (const [id, held] of named) if (!held.engine.valid) named.delete(id);
    };
    return {
      reset: () => restore(this.start!),
      checkpoint: async () => {
        await this.server.dispatcher.inFlight.idle(this.resetTimeoutMs, 'taking a checkpoint', 1);
        const id = `checkpoint_${++next}`;
        named.set(id, this.server.checkpoints.take());
        return id;
      },
      restore: async (id) => {
        const checkpoint = named.get(id);
        if (!checkpoint)
          throw new NotFound(
            `No checkpoint '${id}' on this test server (a restore of an older one discards those taken after it)`,
          );
        await restore(checkpoint);
      },
      clock: () => clockView(this.clock),
      moveClock: async (move) => {
        try {
          if (move.set !== undefined) await this.clock.set(move.set);
          else if (move.advance !== undefined) await this.clock.advance(move.advance);
        } catch (err) {
          throw err instanceof TypeError ? new InvalidInput(err.message) : err;
        }
        if (move.freeze === true) this.clock.freeze();
        else if (move.freeze === false) this.clock.resume();
        return clockView(this.clock);
      },
    };
  }

  /** Writes the fixtures through the same procedures as the HTTP API, so they are checked the same way. */
  async seed(seed: CheckedSeed | undefined): Promise<void> {
    if (!seed) return;
    const token = await this.token();
    for (const collection of seed.collections) {
      const where = `seed collection '${collection.name}'`;
      await this.seedRequest('POST', `/api/collections/${enc(collection.name)}`, token, collection.schema, where);
      for (const index of collection.indexes)
        await this.seedRequest('POST', `/api/indexes/query/${enc(collection.name)}`, token, index, `${where}, index`);
      const session = this.server.db.session(undefined);
      for (let at = 0; at < collection.records.length; at += SEED_CHUNK) {
        const chunk = collection.records.slice(at, at + SEED_CHUNK);
        try {
          await session.insertAll(collection.name, chunk);
        } catch (err) {
          throw new SeedError(`${where}, records ${at}-${at + chunk.length - 1}: ${(err as Error).message}`);
        }
      }
    }
    for (const entry of seed.kv) {
      const body = { value: entry.value, ...(entry.ttl !== undefined ? { ttl: entry.ttl } : {}) };
      await this.seedRequest('POST', `/api/kv/set/${enc(entry.key)}`, token, body, `seed key-value '${entry.key}'`);
    }
    for (const [i, definition] of seed.functions.entries())
      await this.seedRequest('POST', '/api/functions', token, definition, `seed function ${i}`);
    for (const [i, schedule] of seed.schedules.entries())
      await this.seedRequest('POST', '/api/schedules', token, schedule, `seed schedule ${i}`);
  }

  /** A seeding request: a refusal is a SeedError naming what was seeded. */
  private async seedRequest(method: string, url: string, token: string, body: unknown, where: string) {
    try {
      return await this.request(method, url, token, body, where);
    } catch (err) {
      throw err instanceof SeedError ? err : new SeedError((err as Error).message);
    }
  }

  /** One request answered in process (no socket); a failure names `where` and the server's message. */
  private async request(method: string, url: string, token: string | undefined, body: unknown, where = url) {
    const answer = await this.server.dispatcher.handle({
      method,
      url,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: Buffer.from(toJson(body ?? {})),
      remoteAddress: '127.0.0.1',
    });
    const text = typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8');
    if (answer.status >= 400) {
      const message = (() => {
        try {
          const failure = JSON.parse(text) as { error?: unknown; message?: unknown };
          return String(typeof failure.error === 'string' ? failure.error : (failure.message ?? text));
        } catch {
          return text;
        }
      })();
      throw new Error(`${where}: ${answer.status} ${message}`);
    }
    return text ? (JSON.parse(text) as unknown) : undefined;
  }

  private open(what: string): void {
    if (this.closed) throw new Error(`cannot ${what}: this test server is closed`);
  }
}

const enc = encodeURIComponent;

function clockView(clock: TestClock): TestClockView {
  return { now: clock.date().toISOString(), frozen: clock.frozen };
}
