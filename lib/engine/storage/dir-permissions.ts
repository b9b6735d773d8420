/**
 * The startup privacy check of a data directory. Everything in it is
 * sensitive (snapshots carry every record, the admin key hash and provider
 * keys), so the directory should be 0700 and its files 0600. What we create
 * is; an existing directory with looser modes is reported with the way to
 * fix it, never changed silently (an operator may have reasons).
 */
import path from 'node:path';
import type { StorageFs } from './fs.js';

const GROUP_OR_OTHERS = 0o077;
const LISTED_FILES = 5;

const octal = (mode: number) => '0' + mode.toString(8);

/**
 * Returns one warning for the directory and one for its files when group or
 * others have any access to them; empty when all is private. Reads only.
 */
export async function checkDataDirPrivacy(fs: StorageFs, dir: string): Promise<string[]> {
  const warnings: string[] = [];
  const dirMode = await fs.mode(dir);
  if (dirMode & GROUP_OR_OTHERS) {
    warnings.push(`data directory ${dir} has mode ${octal(dirMode)}, so group or others can access it; fix with: chmod 700 ${dir}`);
  }
  const loose: string[] = [];
  for (const name of (await fs.readdir(dir)).sort()) {
    const mode = await modeIfPresent(fs, path.join(dir, name));
    if (mode !== undefined && mode & GROUP_OR_OTHERS) loose.push(`${name} ${octal(mode)}`);
  }
  if (loose.length > 0) {
    const listed = loose.slice(0, LISTED_FILES).join(', ') + (loose.length > LISTED_FILES ? `, and ${loose.length - LISTED_FILES} more` : '');
    warnings.push(`${loose.length} file(s) in data directory ${dir} are accessible to group or others (${listed}); fix with: chmod 600 ${path.join(dir, '*')}`);
  }
  return warnings;
}

/** A file removed between readdir and stat (a snapshot finishing) is simply skipped. */
async function modeIfPresent(fs: StorageFs, file: string): Promise<number | undefined> {
  try {
    return await fs.mode(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
