/**
 * Offline tools on a data directory. They take the directory's lock, so
 * they refuse to run while a server is using it.
 *
 *   eddydb snapshot                    write a snapshot now, drop redundant segments
 *   eddydb compact                     snapshot and keep only the newest one
 *   eddydb verify                      check every file, list generations, say whether a
 *                                      normal start would succeed (exit 1 when it would not)
 *   eddydb export --collection C [--out FILE]   NDJSON of typed records
 *   eddydb import --collection C [--in FILE]    NDJSON in, batches of 1,000
 */
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Database, fromJson, nodeFs, recordToWire, toJson, verifyGenerations, type VerifyResult } from '../engine/index.js';
import type { ParsedArgs } from './config.js';

const IMPORT_CHUNK = 1000;

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

function progress(msg: string): void {
  process.stderr.write(`\r${msg}`);
}

export async function runTool(args: ParsedArgs): Promise<number> {
  const dataDir = path.resolve(str(args, 'data-dir') ?? process.env.EDDYDB_DATA_DIR ?? 'data');
  switch (args.command) {
    case 'snapshot':
    case 'compact': {
      const db = await Database.open({ dataDir, keepGenerations: args.command === 'compact' ? 1 : 2, log: (m) => console.error(m) });
      const s = await db.snapshot();
      await db.close();
      console.log(`snapshot ${s.name} written (seq ${s.seq}, ${s.bytes} bytes)`);
      return 0;
    }
    case 'verify': {
      const result = await verifyGenerations(nodeFs, dataDir);
      printVerify(result);
      return result.start.ok ? 0 : 1;
    }
    case 'export': return exportCollection(dataDir, args);
    case 'import': return importCollection(dataDir, args);
    case 'help':
    default:
      console.log([
        'usage: eddydb <command> [options]',
        '  start      run the server (--port, --host, --data-dir, --durability always|batch|none, --salvage, ...)',
        '  snapshot   write a snapshot of --data-dir now',
        '  compact    snapshot and drop every older snapshot and segment',
        '  verify     check every file in --data-dir and say whether a normal start would succeed',
        '  export     --collection C [--out FILE]  write NDJSON (stdout by default)',
        '  import     --collection C [--in FILE]   read NDJSON (stdin by default)',
      ].join('\n'));
      return args.command === 'help' ? 0 : 2;
  }
}

function printVerify(r: VerifyResult): void {
  for (const f of r.files) console.log(`${f.ok ? 'ok ' : 'BAD'} ${f.file}  ${f.frames} frames, ${f.bytes} bytes${f.problem ? `  ${f.problem}` : ''}`);
  console.log(`${r.files.length} files checked, ${r.files.filter((f) => !f.ok).length} with problems`);
  console.log('generations, newest first:');
  for (const g of r.generations) {
    const name = g.snapshot ? `${g.snapshot} (seq ${g.seq})` : 'the empty state (seq 0)';
    const state = !g.intact ? 'DAMAGED' : g.covered ? 'intact, the log covers it' : 'NOT COVERED';
    console.log(`  ${name}: ${state}${g.problem ? ` (${g.problem})` : ''}`);
  }
  const { start } = r;
  if (start.ok) {
    console.log(`a normal start would succeed: from ${start.report.snapshot ?? 'the empty state'}, replaying ${start.report.replayedBatches} batches to seq ${start.seq}`);
    for (const w of start.report.warnings) console.log(`  warning: ${w}`);
    return;
  }
  console.log(`a normal start would REFUSE: ${start.message}`);
  if (!start.salvage) return;
  if ('error' in start.salvage) { console.log(`--salvage would fail too: ${start.salvage.error}`); return; }
  const s = start.salvage.report;
  console.log(`--salvage would start from ${s.snapshot ?? 'the empty state'} and reach seq ${start.salvage.seq}, dropping ${s.droppedFrames} frames (${s.droppedBytes} bytes):`);
  for (const w of s.warnings) console.log(`  ${w}`);
}

async function exportCollection(dataDir: string, args: ParsedArgs): Promise<number> {
  const collection = str(args, 'collection');
  if (!collection) { console.error('export needs --collection'); return 2; }
  const db = await Database.open({ dataDir });
  try {
    const out: NodeJS.WritableStream = str(args, 'out') ? createWriteStream(str(args, 'out')!) : process.stdout;
    const total = db.records.count(collection);
    let n = 0;
    for (const r of db.records.scan(collection)) {
      const line = toJson(recordToWire(r, { typed: true }));
      if (!out.write(line + '\n')) await new Promise<void>((res) => out.once('drain', () => res()));
      if (++n % 10_000 === 0) progress(`exported ${n}/${total}`);
    }
    if (out !== process.stdout) await new Promise<void>((res) => out.end(() => res()));
    process.stderr.write(`\rexported ${n} records from '${collection}'\n`);
    return 0;
  } finally {
    await db.close();
  }
}

async function importCollection(dataDir: string, args: ParsedArgs): Promise<number> {
  const collection = str(args, 'collection');
  if (!collection) { console.error('import needs --collection'); return 2; }
  const db = await Database.open({ dataDir });
  let imported = 0, failed = 0, line = 0;
  try {
    const input = str(args, 'in') ? createReadStream(str(args, 'in')!) : process.stdin;
    let chunk: unknown[] = [];
    const flush = async () => {
      const res = await db.bulk.insertMany(collection, chunk);
      imported += res.successful.length;
      for (const f of res.failed) console.error(`\n${f.index === undefined ? '' : `line ${line - chunk.length + f.index + 1}: `}${f.error}`);
      failed += res.failed.length;
      chunk = [];
      progress(`imported ${imported} (${failed} failed)`);
    };
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      if (text.trim() === '') continue;
      try {
        chunk.push(fromJson(text));
      } catch {
        console.error(`\nline ${line}: not valid JSON`);
        failed += 1;
        continue;
      }
      if (chunk.length >= IMPORT_CHUNK) await flush();
    }
    if (chunk.length > 0) await flush();
    process.stderr.write(`\rimported ${imported} records into '${collection}', ${failed} failed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await db.close({ snapshot: true });
  }
}
