/**
 * The fixture side of the `testing` scenario (bench/scenarios/testing.ts),
 * run transpiled from dist/bench/ so that it imports the built fixture
 * (dist/lib/testing.js) as an application's tests do. One part per process,
 * named by the first argument; progress goes to stderr, the figures to
 * stdout as one JSON line.
 *
 *   start <starts>          startTestServer() to resolved, against a bare node:http listen(0)
 *   reset <records> <runs> <slow runs>
 *                           reset and checkpoint/restore after a test-like change, seeded with <records>,
 *                           against copying a Map of the same records (the naive snapshot-by-copy reset);
 *                           <slow runs> for the change that deletes a seeded record, and for the copy
 *   file <tests> <inserts>  a test file: <tests> tests of <inserts> single inserts over HTTP, each then reset,
 *                           against the same inserts without resets on a fresh fixture
 */
import http from 'node:http';
import type * as Testing from '../lib/testing.js';
import { benchRecord } from './lib/records.js';

type TestServer = Testing.TestServer;

const log = (msg: string) => process.stderr.write(`  (testing: ${msg})\n`);

/** Milliseconds `fn` takes, until its promise settles. */
async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The fixture module, from dist/ beside this compiled file; the import's own time is reported apart. */
async function importFixture(): Promise<{ fixture: typeof Testing; importMs: number }> {
  const t0 = performance.now();
  const fixture = (await import('../lib/testing.js')) as typeof Testing;
  return { fixture, importMs: performance.now() - t0 };
}

/** A bare node:http server listening on an ephemeral port of 127.0.0.1, and closed. */
async function bareStart(): Promise<{ startMs: number; closeMs: number }> {
  const t0 = performance.now();
  const server = http.createServer((_req, res) => res.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const startMs = performance.now() - t0;
  const closeMs = await time(() => new Promise((resolve) => server.close(resolve)));
  return { startMs, closeMs };
}

async function startPart(starts: number): Promise<unknown> {
  const { fixture, importMs } = await importFixture();
  // The first start of a process pays for code compiled and loaded lazily: reported apart.
  let server: TestServer | undefined;
  const firstStartMs = await time(async () => (server = await fixture.startTestServer()));
  const firstCloseMs = await time(() => server!.close());
  const firstBareMs = (await bareStart()).startMs;
  const fixtureStart: number[] = [],
    fixtureClose: number[] = [],
    bare: number[] = [],
    bareClose: number[] = [];
  // Alternating, so a drift of the machine's speed hits both alike.
  for (let i = 0; i < starts; i++) {
    const b = await bareStart();
    bare.push(b.startMs);
    bareClose.push(b.closeMs);
    fixtureStart.push(await time(async () => (server = await fixture.startTestServer())));
    fixtureClose.push(await time(() => server!.close()));
  }
  return { importMs, firstStartMs, firstCloseMs, firstBareMs, fixtureStart, fixtureClose, bare, bareClose };
}

/** JSON requests to a fixture over one keep-alive connection pool (node's fetch), failing loudly on an error. */
class Client {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(this.url + path, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  }
}

const INSERTED = 100,
  UPDATED = 10;

/** A test's writes: 100 inserts (one batch), 10 seeded records updated, and the first seeded one deleted or not. */
async function testLikeChange(client: Client, seededIds: string[], withDelete: boolean, round: number) {
  const inserts = Array.from({ length: INSERTED }, (_, k) => ({ data: benchRecord(10_000_000 + round * 1000 + k) }));
  const answer = (await client.call('POST', '/api/batch/insert/bench', { inserts })) as { successful?: string[] };
  if (answer.successful?.length !== INSERTED) throw new Error(`batch insert: ${JSON.stringify(answer).slice(0, 300)}`);
  for (const id of seededIds.slice(1, 1 + UPDATED))
    await client.call('PUT', `/api/update/bench/${id}`, { score: round, active: round % 2 === 0 });
  if (withDelete) await client.call('DELETE', `/api/delete/bench/${seededIds[0]}`);
}

/** `runs` timings of `fn`, after `warmup` untimed runs. */
async function timedRuns(runs: number, warmup: number, fn: (round: number) => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < warmup + runs; round++) {
    const ms = await fn(round);
    if (round >= warmup) times.push(ms);
  }
  return times;
}

async function resetPart(records: number, runs: number, slowRuns: number): Promise<unknown> {
  const { fixture } = await importFixture();
  const seedRecords = (): Record<string, unknown>[] => Array.from({ length: records }, (_, i) => benchRecord(i));
  log(`seeding ${records.toLocaleString('en-US')} records`);
  let server: TestServer | undefined;
  const seedStartMs = await time(
    async () => (server = await fixture.startTestServer({ seed: { collections: { bench: seedRecords() } } })),
  );
  const t = server!;
  const client = new Client(t.url, await t.token());
  const count = ((await client.call('GET', '/api/bench/count')) as { count: number }).count;
  if (count !== records) throw new Error(`seeded ${count} records, expected ${records}`);
  const found = (await client.call('POST', '/api/find/bench', { limit: 1 + UPDATED })) as Array<{ id: string }>;
  const seededIds = found.map((r) => r.id);
  if (seededIds.length !== 1 + UPDATED || seededIds.some((id) => typeof id !== 'string'))
    throw new Error(`seeded ids unreadable: ${JSON.stringify(found).slice(0, 300)}`);
  const warmup = 3;
  /** The path that deletes a seeded record may take time that grows with the records: fewer runs. */
  const runsOf = (withDelete: boolean): [number, number] => (withDelete ? [slowRuns, 1] : [runs, warmup]);

  const resetAfter = (withDelete: boolean) =>
    timedRuns(...runsOf(withDelete), async (round) => {
      await testLikeChange(client, seededIds, withDelete, round);
      return time(() => t.reset());
    });
  const checkpointMs: number[] = [];
  const restoreAfter = (withDelete: boolean) =>
    timedRuns(...runsOf(withDelete), async (round) => {
      const t0 = performance.now();
      const checkpoint = await t.checkpoint();
      checkpointMs.push(performance.now() - t0);
      await testLikeChange(client, seededIds, withDelete, round);
      const ms = await time(() => t.restore(checkpoint));
      t.server.checkpoints.release(checkpoint);
      return ms;
    });
  log(`${records.toLocaleString('en-US')} records: reset and restore after pure inserts and updates`);
  const resetChanges = await resetAfter(false);
  const restoreChanges = await restoreAfter(false);
  log(`${records.toLocaleString('en-US')} records: reset and restore after a change that deletes a seeded record`);
  const resetDelete = await resetAfter(true);
  const restoreDelete = await restoreAfter(true);
  const after = ((await client.call('GET', '/api/bench/count')) as { count: number }).count;
  if (after !== records) throw new Error(`after the resets ${after} records, expected ${records}`);
  await t.close();

  // The reference: the naive reset of a fixture that keeps a copy of its seeded state and puts it back by copying.
  log(`${records.toLocaleString('en-US')} records: the Map copy reference`);
  const seeded = new Map<string, Record<string, unknown>>();
  seedRecords().forEach((r, i) => seeded.set(`r${i}`, { id: `r${i}`, ...r }));
  let live = new Map(seeded);
  const mapCopy = await timedRuns(slowRuns, 1, async () => {
    const t0 = performance.now();
    live = new Map(seeded);
    return Promise.resolve(performance.now() - t0);
  });
  if (live.size !== records) throw new Error('the Map copy lost records');
  return { records, seedStartMs, resetChanges, restoreChanges, resetDelete, restoreDelete, checkpointMs, mapCopy };
}

async function filePart(tests: number, inserts: number, rounds: number): Promise<unknown> {
  const { fixture } = await importFixture();
  /** One test file on a fresh fixture: per test, `inserts` single inserts, then a reset when `reset`. */
  const run = async (reset: boolean) => {
    const t = await fixture.startTestServer();
    const client = new Client(t.url, await t.token());
    const perTest: number[] = [],
      resets: number[] = [];
    let n = 0;
    const t0 = performance.now();
    for (let test = 0; test < tests; test++) {
      const start = performance.now();
      for (let i = 0; i < inserts; i++) await client.call('POST', '/api/insert/bench', benchRecord(n++));
      if (reset) resets.push(await time(() => t.reset()));
      perTest.push(performance.now() - start);
    }
    const totalMs = performance.now() - t0;
    const count = ((await client.call('GET', '/api/bench/count')) as { count: number }).count;
    if (count !== (reset ? 0 : tests * inserts)) throw new Error(`the test file left ${count} records`);
    await t.close();
    return { totalMs, perTest, resets };
  };
  // Warm-up of both kinds: the JIT, and the client's connection pool.
  await run(false);
  await run(true);
  const withReset = [],
    without = [];
  for (let round = 0; round < rounds; round++) {
    log(`test file, round ${round + 1} of ${rounds}`);
    without.push(await run(false));
    withReset.push(await run(true));
  }
  return { tests, inserts, withReset, without };
}

const [part, ...args] = process.argv.slice(2);
const numbers = args.map(Number);
let result: unknown;
if (part === 'start') result = await startPart(numbers[0]!);
else if (part === 'reset') result = await resetPart(numbers[0]!, numbers[1]!, numbers[2]!);
else if (part === 'file') result = await filePart(numbers[0]!, numbers[1]!, numbers[2]!);
else throw new Error(`testing-child: unknown part '${part}': use start, reset or file`);
process.stdout.write(JSON.stringify(result) + '\n');
// Pools of outbound connections and the fetch client's keep-alive sockets would keep the process up.
process.exit(0);
