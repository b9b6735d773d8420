/**
 * Crash atomicity of large writes with real processes: a child server takes
 * a 10,000-record batch insert and the commit of a 10,000-operation
 * transaction at the same time and is killed with SIGKILL during those
 * requests (at a random moment, or the moment the log starts growing), many
 * times over one data directory. After every restart each batch and each
 * commit is all there or not there at all (0 or 10,000 records), never
 * partial, and an acknowledged one is there.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startChild, killChild, childToken, type ChildServer } from '../../helpers/child-server.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

const SIZE = 10_000;
const ROUNDS = 13;

interface Outcome {
  collection: string;
  acked: boolean;
}

async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const r = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

const records = (tag: string) =>
  Array.from({ length: SIZE }, (_, i) => ({ data: { tag, i, pad: 'p'.repeat(20 + (i % 50)) } }));

async function count(url: string, token: string, c: string): Promise<number> {
  const r = await call(url, token, 'GET', `/api/${c}/count`);
  expect(r.status).to.equal(200);
  return r.json.count;
}

/** Every batch is all or nothing; acknowledged ones are all there. Returns the collections now present. */
async function verify(url: string, token: string, outcomes: Outcome[], present: Set<string>): Promise<void> {
  for (const o of outcomes) {
    const n = await count(url, token, o.collection);
    expect([0, SIZE], `${o.collection} holds ${n} records after a crash`).to.include(n);
    if (o.acked) expect(n, `acknowledged ${o.collection} lost`).to.equal(SIZE);
    // What recovery found once must still be there after every later crash.
    if (present.has(o.collection)) expect(n, `${o.collection} vanished`).to.equal(SIZE);
    if (n === SIZE) present.add(o.collection);
  }
}

/** When to kill: once both requests are answered, after a delay, or the moment the log starts growing. */
type Trigger = { kind: 'answered' } | { kind: 'delay'; ms: number } | { kind: 'log-growth' };

function logBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) {
    if (!/^log-\d+\.seg$/.test(f)) continue;
    try {
      n += statSync(path.join(dir, f)).size;
    } catch {
      /* removed by a snapshot meanwhile */
    }
  }
  return n;
}

async function logGrowth(dir: string, from: number, inFlight: Promise<unknown>): Promise<void> {
  let done = false;
  void inFlight.finally(() => {
    done = true;
  });
  while (!done && logBytes(dir) <= from) await new Promise((r) => setImmediate(r));
}

/**
 * Sends both large requests and kills the child when `trigger` says.
 * Resolves with the outcomes and how long the requests ran before the kill.
 */
async function roundTrip(
  child: ChildServer,
  dir: string,
  token: string,
  round: number,
  trigger: Trigger,
): Promise<{ outcomes: Outcome[]; ms: number }> {
  const batch = `bulk_r${round}`;
  const txColl = `tx_r${round}`;
  const begin = await call(child.url, token, 'POST', '/api/transactions', { isolation_level: 'ReadCommitted' });
  expect(begin.status).to.equal(200);
  const tx = begin.json.transaction_id as string;
  const staged = await call(child.url, token, 'POST', `/api/batch/insert/${txColl}?transaction_id=${tx}`, {
    inserts: records(txColl),
  });
  expect(staged.status).to.equal(201);
  const send = async (method: string, path: string, body: unknown, ok: number): Promise<boolean> => {
    try {
      return (await call(child.url, token, method, path, body)).status === ok;
    } catch {
      return false;
    }
  };
  const before = logBytes(dir);
  const inFlight = [
    send('POST', `/api/batch/insert/${batch}`, { inserts: records(batch) }, 201),
    send('POST', `/api/transactions/${tx}/commit`, undefined, 200),
  ];
  const started = Date.now();
  if (trigger.kind === 'answered') await Promise.all(inFlight);
  else if (trigger.kind === 'delay') await new Promise((r) => setTimeout(r, trigger.ms));
  else await logGrowth(dir, before, Promise.all(inFlight));
  const ms = Date.now() - started;
  await killChild(child);
  const [batchAcked, commitAcked] = await Promise.all(inFlight);
  return {
    outcomes: [
      { collection: batch, acked: batchAcked! },
      { collection: txColl, acked: commitAcked! },
    ],
    ms,
  };
}

describe('crash atomicity of batches and transaction commits (real processes)', function () {
  this.timeout(600_000);

  it(`keeps each 10,000-record batch and commit all or nothing across ${ROUNDS} kill -9 rounds`, async () => {
    const dir = tempDir('eddydb-crash-batch-');
    const outcomes: Outcome[] = [];
    const present = new Set<string>();
    let acked = 0;
    try {
      // Round 0 lets both requests finish to measure how long they take, so later kills land within them.
      let spanMs = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const child = await startChild(dir, ['--snapshot-bytes', '3000000']);
        const token = await childToken(child.url);
        await verify(child.url, token, outcomes, present);
        // Random moments, and every third round the moment the first large append reaches the log.
        const trigger: Trigger =
          round === 0
            ? { kind: 'answered' }
            : round % 3 === 0
              ? { kind: 'log-growth' }
              : { kind: 'delay', ms: Math.floor(Math.random() * spanMs * 1.5) };
        const result = await roundTrip(child, dir, token, round, trigger);
        if (round === 0) spanMs = Math.max(20, result.ms);
        outcomes.push(...result.outcomes);
        acked += result.outcomes.filter((o) => o.acked).length;
      }
      const child = await startChild(dir);
      const token = await childToken(child.url);
      await verify(child.url, token, outcomes, present);
      await killChild(child, 'SIGTERM');
      // Not a correctness condition, but the test means little if every kill landed before or after the writes.
      expect(present.size + acked, 'no batch was ever written').to.be.greaterThan(0);
    } finally {
      if (process.env.KEEP_CRASH_DIR) console.log('kept', dir);
      else removeDir(dir);
    }
  });
});
