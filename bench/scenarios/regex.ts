/**
 * User patterns on the linear-time engine (lib/engine/pattern, re2js) against
 * V8's backtracking RegExp, over the same data in the same run:
 * - regex-kv-find: `POST /api/kv/find` over 100,000 keys with three ordinary
 *   patterns; the reference is the previous find loop with `new RegExp`.
 * - regex-schema-insert: a bulk insert of 10,000 records into a collection
 *   whose `email` field has a regex; the reference inserts into the same
 *   schema without the regex and runs `new RegExp(p).test(v)` per record, as
 *   the previous check did.
 * Both also time the catastrophic `^(a+)+$` case on the linear engine (V8 is
 * not run on it: 30 characters take about 21 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compilePattern, Database, requirePattern } from '../../lib/engine/index.js';
import { percentile, report, timed } from '../lib/report.js';

const KV_PATTERNS = ['^user:[0-9]+$', 'cache:product:.*', '^[a-z0-9.]+@[a-z0-9-]+\\.[a-z]{2,}$'];
const EMAIL = '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$';

function key(i: number): string {
  switch (i % 4) {
    case 0:
      return `user:${i}`;
    case 1:
      return `cache:product:${i}:details`;
    case 2:
      return `person${i}@example${i % 7}.com`;
    default:
      return `session:${((i * 2654435761) >>> 0).toString(16)}`;
  }
}

/** Milliseconds the linear engine takes on the pattern that freezes V8. */
function catastrophicMs(): number {
  const compiled = compilePattern('^(a+)+$');
  if (!compiled.ok) throw new Error(compiled.problem);
  const t0 = performance.now();
  compiled.pattern.test('a'.repeat(30) + '!');
  return performance.now() - t0;
}

async function openScratch(): Promise<{ db: Database; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  return { db: await Database.open({ dataDir: dir, settings: { durability: 'none' } }), dir };
}

async function closeScratch(s: { db: Database; dir: string }): Promise<void> {
  await s.db.close({ snapshot: false });
  rmSync(s.dir, { recursive: true, force: true });
}

export async function regexKvFind(size = 100_000): Promise<void> {
  const RUNS = 10;
  const scratch = await openScratch();
  const keys = Array.from({ length: size }, (_, i) => key(i));
  for (let i = 0; i < size; i += 10_000)
    await scratch.db.kv.batchSet(keys.slice(i, i + 10_000), keys.slice(i, i + 10_000));
  const kv = scratch.db.state.kv;
  let hits = 0;
  const subj = await timed(RUNS, async () => {
    hits = 0;
    for (const p of KV_PATTERNS) hits += (await scratch.db.kv.find(requirePattern(p, 'pattern'), false)).length;
  });
  // The find loop as it was, on V8's RegExp: sorted keys, test, collect entries.
  const ref = await timed(RUNS, () => {
    for (const p of KV_PATTERNS) {
      const re = new RegExp(p);
      const out: unknown[] = [];
      for (const k of [...kv.keys()].sort()) if (re.test(k)) out.push({ key: k, value: kv.get(k)!.value });
    }
  });
  await closeScratch(scratch);
  const finds = KV_PATTERNS.length;
  const subject = {
    label: `kv find, linear engine (${hits} hits)`,
    throughput: (1000 * finds) / percentile(subj, 50),
    p50_ms: percentile(subj, 50),
    p99_ms: percentile(subj, 99),
  };
  const reference = {
    label: 'kv find loop on V8 RegExp',
    throughput: (1000 * finds) / percentile(ref, 50),
    p50_ms: percentile(ref, 50),
    p99_ms: percentile(ref, 99),
  };
  report({
    scenario: 'regex-kv-find',
    subject,
    reference,
    ratio: subject.throughput / reference.throughput,
    ratio_of: 'finds/s vs V8 RegExp',
    notes: `p50/p99 per run of ${finds} finds over ${size} keys`,
    extra: { catastrophic_ms_linear: catastrophicMs() },
  });
}

export async function regexSchemaInsert(size = 10_000): Promise<void> {
  const RUNS = 10;
  const scratch = await openScratch();
  await scratch.db.collections.create('checked', { fields: { email: { field_type: 'String', regex: EMAIL } } });
  await scratch.db.collections.create('plain', { fields: { email: { field_type: 'String' } } });
  const bodies = Array.from({ length: size }, (_, i) => ({ email: `person${i}@example${i % 7}.com`, n: i }));
  const subj = await timed(RUNS, async () => {
    await scratch.db.bulk.insertMany('checked', bodies);
  });
  const ref = await timed(RUNS, async () => {
    for (const b of bodies) if (!new RegExp(EMAIL).test(b.email)) throw new Error('reference data must match');
    await scratch.db.bulk.insertMany('plain', bodies);
  });
  await closeScratch(scratch);
  const subject = {
    label: 'bulk insert, regex on linear engine',
    throughput: size / (percentile(subj, 50) / 1000),
    p50_ms: percentile(subj, 50),
    p99_ms: percentile(subj, 99),
  };
  const reference = {
    label: 'bulk insert + V8 RegExp per record',
    throughput: size / (percentile(ref, 50) / 1000),
    p50_ms: percentile(ref, 50),
    p99_ms: percentile(ref, 99),
  };
  report({
    scenario: 'regex-schema-insert',
    subject,
    reference,
    ratio: subject.throughput / reference.throughput,
    ratio_of: 'records/s vs V8 RegExp',
    notes: `p50/p99 per ${size}-record batch`,
    extra: { catastrophic_ms_linear: catastrophicMs() },
  });
}
