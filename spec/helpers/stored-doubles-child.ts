/**
 * Child of spec/engine/values/stored-array.spec.ts, run with
 * --allow-natives-syntax: writes records holding arrays of numbers (a typed
 * vector, a raw list) beside lists of strings through a database on disk,
 * often enough that the loops that convert and encode them are optimized
 * with both kinds of array seen, snapshots them, reopens the database, and
 * prints how many of the stored number arrays V8 no longer holds as
 * doubles, as written and as recovered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database } from '../../lib/engine/database.js';
import { Tagged } from '../../lib/engine/index.js';

// V8's own check of an array's elements kind; the flag makes the syntax parse. A test of the engine, not product code.
const hasDoubles = new Function('array', 'return %HasDoubleElements(array)') as (array: unknown) => boolean;

const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-doubles-'));
let db = await Database.open({ dataDir: dir });
try {
  await db.collections.create('docs', { fields: { embedding: { field_type: 'Vector' } } });
  const body = (i: number) => ({
    embedding: Array.from({ length: 16 }, (_, d) => Math.sin(i + d) / 3),
    scores: [i + 0.5, i / 7, 1.25],
    tags: ['a', `t${i % 5}`],
  });
  const ids: string[] = [];
  for (let round = 0; round < 30; round++) {
    const batch = await db.bulk.insertMany(
      'docs',
      Array.from({ length: 200 }, (_, k) => body(round * 200 + k)),
    );
    ids.push(...batch.successful);
    ids.push(await db.records.insert('docs', body(round)));
  }
  await db.snapshot();
  await db.snapshot();
  const boxed = () => {
    const records = db.state.collections.get('docs')!.records;
    let vectors = 0;
    let lists = 0;
    for (const id of ids) {
      const fields = records.get(id)!.fields;
      const embedding = fields.embedding as Tagged;
      if (!(embedding instanceof Tagged) || !hasDoubles(embedding.value)) vectors++;
      if (!hasDoubles(fields.scores)) lists++;
    }
    return { vectors, lists };
  };
  const written = boxed();
  // Recovered from the last snapshot and the log after it.
  for (let i = 0; i < 100; i++) await db.records.insert('docs', body(i));
  await db.close();
  db = await Database.open({ dataDir: dir });
  console.log(JSON.stringify({ records: ids.length, written, recovered: boxed() }));
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
