/**
 * Damaged files are set aside, never deleted: into `damaged-<time>/` beside
 * the data, with `recovery-report.json` saying what recovery dropped.
 *
 * - After a normal start that fell back past a damaged snapshot, the file is
 *   moved (renamed): an older generation and the log cover its data.
 * - Salvage copies instead, so a crash before its fresh snapshot is durable
 *   leaves the directory as it was; the originals are removed only once that
 *   snapshot is written and verified (`removeOriginals`).
 * Every operation goes through StorageFs, so fault injection reaches it.
 */
import path from 'node:path';
import type { StorageFs } from '../fs.js';
import type { RecoveryReport } from './recovery-report.js';

export const REPORT_FILE = 'recovery-report.json';

function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '');
}

/**
 * Moves or copies the report's damaged files into a new `damaged-<time>/`
 * directory and writes the report there. Returns the directory's name
 * (relative to `dir`). Durable on return.
 */
export async function preserveDamaged(
  fs: StorageFs,
  dir: string,
  report: RecoveryReport,
  now: number,
  mode: 'move' | 'copy',
): Promise<string> {
  const name = await newDamagedDir(fs, dir, now);
  const target = path.join(dir, name);
  for (const { file } of report.damaged) {
    if (mode === 'move') await fs.rename(path.join(dir, file), path.join(target, file));
    else await writeFile(fs, path.join(target, file), await fs.readFile(path.join(dir, file)));
  }
  await writeFile(
    fs,
    path.join(target, REPORT_FILE),
    Buffer.from(JSON.stringify({ ...report, movedTo: name }, null, 2) + '\n'),
  );
  await fs.syncDir(target);
  await fs.syncDir(dir);
  return name;
}

/** Moves `files` of `dir` into a new `damaged-<time>/`; returns its name. Durable on return. */
export async function moveAside(fs: StorageFs, dir: string, files: readonly string[], now: number): Promise<string> {
  const name = await newDamagedDir(fs, dir, now);
  for (const file of files) await fs.rename(path.join(dir, file), path.join(dir, name, file));
  await fs.syncDir(path.join(dir, name));
  await fs.syncDir(dir);
  return name;
}

async function newDamagedDir(fs: StorageFs, dir: string, now: number): Promise<string> {
  let name = `damaged-${stamp(now)}`;
  for (let n = 2; fs.exists(path.join(dir, name)); n++) name = `damaged-${stamp(now)}-${n}`;
  await fs.mkdir(path.join(dir, name));
  return name;
}

/**
 * Salvage, after its fresh snapshot is verified: removes the originals of
 * the files already copied aside, except names now in use again (`inUse`).
 */
export async function removeOriginals(
  fs: StorageFs,
  dir: string,
  report: RecoveryReport,
  inUse: ReadonlySet<string>,
): Promise<void> {
  for (const { file } of report.damaged) {
    if (!inUse.has(file) && fs.exists(path.join(dir, file))) await fs.unlink(path.join(dir, file));
  }
  await fs.syncDir(dir);
}

async function writeFile(fs: StorageFs, file: string, data: Buffer): Promise<void> {
  const handle = await fs.openWrite(file);
  try {
    await handle.write(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
