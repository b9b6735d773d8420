/**
 * The startup privacy check of a data directory. Everything in it is
 * sensitive (snapshots carry every record, the admin key hash and provider
 * keys), so the directory should be 0700 and its files 0600. What we create
 * is; an existing directory with looser modes is reported with the way to
 * fix it, never changed silently (an operator may have reasons). The one
 * exception is a directory that holds no EddyDB file yet (the repository's
 * `data/` with its `.gitkeep`, a mount point made by hand): there is no data
 * whose access anyone relies on, so it is made private like one we create.
 * Only EddyDB's own files are checked; a placeholder or a file an operator
 * keeps beside the data is not ours to judge.
 */
import path from 'node:path';
import { PRIVATE_DIR_MODE, type StorageFs } from './fs.js';

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
    warnings.push(
      `data directory ${dir} has mode ${octal(dirMode)}, so group or others can access it; fix with: chmod 700 ${dir}`,
    );
  }
  const loose: string[] = [];
  for (const name of (await fs.readdir(dir)).sort()) {
    if (!isEddyFile(name)) continue;
    const mode = await modeIfPresent(fs, path.join(dir, name));
    if (mode !== undefined && mode & GROUP_OR_OTHERS) loose.push(`${name} ${octal(mode)}`);
  }
  if (loose.length > 0) {
    const listed =
      loose.slice(0, LISTED_FILES).join(', ') +
      (loose.length > LISTED_FILES ? `, and ${loose.length - LISTED_FILES} more` : '');
    warnings.push(
      `${loose.length} file(s) in data directory ${dir} are accessible to group or others (${listed}); fix with: ` +
        `chmod 600 ${path.join(dir, '*')}`,
    );
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

/** Names EddyDB writes in a data directory (lib/engine/FORMAT.md lists them). */
const EDDY_FILE = new RegExp(
  '^(log-\\d{16}\\.seg|snapshot-\\d{16}\\.snap|.*\\.tmp|damaged-.*|' +
    'secrets|admin\\.key|LOCK|audit\\.log|node-id|ripple-cursors\\.json)$',
);

export function isEddyFile(name: string): boolean {
  return EDDY_FILE.test(name);
}

/**
 * Makes `dir` private (0700) when it holds no EddyDB file yet; call it
 * before anything is written there. Returns true when it changed the mode.
 */
export async function securePristineDir(fs: StorageFs, dir: string): Promise<boolean> {
  if ((await fs.readdir(dir)).some(isEddyFile)) return false;
  if (((await fs.mode(dir)) & 0o777) === PRIVATE_DIR_MODE) return false;
  await fs.chmod(dir, PRIVATE_DIR_MODE);
  return true;
}
