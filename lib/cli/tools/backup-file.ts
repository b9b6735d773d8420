/**
 * The offline tools on a backup file:
 * - `eddydb verify FILE`: reads it as a restore would (backup-file.ts of the
 *   engine: every frame, the seq, the records) and says what it holds, or
 *   where it is damaged (exit 1). Changes nothing.
 * - `eddydb restore FILE --data-dir DIR`: checks it the same way, then
 *   writes its snapshot and secrets into DIR, which must be new or empty
 *   (`lost+found`, as the root of a fresh volume has, does not count): a
 *   restore never mixes with other files. It holds DIR's lock while it
 *   writes, so no server starts there meanwhile.
 */
import { readdirSync, statSync } from 'node:fs';
import { Corruption } from '../../errors.js';
import {
  DirLock,
  nodeFs,
  readBackup,
  restoreBackup,
  securePristineDir,
  type BackupContents,
} from '../../engine/index.js';
import { CliFailure } from '../failure.js';
import { toolLog } from './tool-log.js';

/** What an empty directory may hold: the root of a fresh ext4 volume has `lost+found`; the lock is our own. */
const IGNORED = new Set(['lost+found', 'LOCK']);

/** Checks the backup `file` and prints what it holds; resolves with the exit code (1 when damaged). */
export async function runVerifyBackup(file: string): Promise<number> {
  let contents: BackupContents;
  try {
    contents = await readBackup(await nodeFs.readFile(file), file);
  } catch (err) {
    if (!(err instanceof Corruption)) throw err;
    console.log(`BAD ${file}  ${err.message}`);
    console.log('the backup is damaged or incomplete: restoring it would fail; take a new one (eddydb backup)');
    return 1;
  }
  console.log(`ok  ${file}`);
  console.log(describeContents(contents).join('\n'));
  return 0;
}

/** Restores `file` into `dataDir`; resolves with the exit code. Refusals throw CliFailure. */
export async function runRestore(file: string, dataDir: string, lockWaitMs?: number): Promise<number> {
  requireEmpty(dataDir);
  let contents: BackupContents;
  const buf = await nodeFs.readFile(file);
  try {
    contents = await readBackup(buf, file);
  } catch (err) {
    if (!(err instanceof Corruption)) throw err;
    throw new CliFailure(`${err.message}\nthe backup is damaged or incomplete; nothing was restored`);
  }
  await nodeFs.mkdir(dataDir);
  await securePristineDir(nodeFs, dataDir);
  const lock = await DirLock.acquire(nodeFs, dataDir, { waitMs: lockWaitMs, log: toolLog });
  try {
    // Looked at again under the lock: a server may have started there meanwhile.
    requireEmpty(dataDir);
    await restoreBackup(nodeFs, dataDir, buf, contents);
  } finally {
    await lock.release();
  }
  console.log(`restored seq ${contents.manifest.seq} from ${file} into ${dataDir}`);
  console.log(describeContents(contents).join('\n'));
  console.log(`start the server with --data-dir ${dataDir}`);
  return 0;
}

/** The lines saying what a backup holds. */
export function describeContents(c: BackupContents): string[] {
  const m = c.manifest;
  const source = m.memory ? 'a memory-only server' : 'a server with a data directory';
  const total = c.collections.reduce((n, coll) => n + coll.records, 0);
  const width = Math.max(0, ...c.collections.map((coll) => coll.name.length));
  return [
    `backup at seq ${m.seq}, taken ${new Date(m.created_at).toISOString()} from ${source} (EddyDB ${m.version}), ` +
      `${c.bytes} bytes (${mebibytes(c.bytes)})`,
    'records per collection:',
    ...c.collections.map((coll) => `  ${coll.name.padEnd(width)}  ${coll.records}`),
    `  total: ${total} record${total === 1 ? '' : 's'} in ${c.collections.length} collection` +
      `${c.collections.length === 1 ? '' : 's'}`,
    `API keys: ${c.state.keys.size}; key-value entries: ${c.state.kv.size}`,
  ];
}

export function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Throws CliFailure unless `dir` is missing or holds nothing that counts. */
function requireEmpty(dir: string): void {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new CliFailure(`${dir} is not a directory; --data-dir names the directory`);
    entries = readdirSync(dir).filter((name) => !IGNORED.has(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (entries.length === 0) return;
  const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', ...' : '');
  throw new CliFailure(
    `refusing to restore into ${dir}: it is not empty (${shown}); restore into a new or empty directory, then ` +
      `start the server there`,
  );
}
