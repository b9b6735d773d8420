/**
 * The offline tools' guard against a mistyped `--data-dir`: opening a
 * database creates one, so without this `eddydb export --data-dir dta`
 * would make an empty database and export nothing, successfully. A tool
 * runs only on a directory that holds EddyDB files (a log segment or a
 * snapshot), or with `--create` on a missing or empty one.
 */
import { readdirSync, statSync } from 'node:fs';
import { isSegmentName, isSnapshotName } from '../../engine/index.js';
import { CliFailure } from '../failure.js';

export interface DataDirRule {
  /** The command offers `--create` (the refusal then names it). */
  readonly canCreate: boolean;
  /** `--create` was given. */
  readonly create: boolean;
}

/**
 * Returns when `dir` holds EddyDB data, or is missing or without EddyDB
 * files and `rule.create` allows making it. Throws CliFailure otherwise;
 * changes nothing on disk. fs errors other than a missing path propagate.
 */
export function requireDataDir(dir: string, rule: DataDirRule): void {
  const refuse = () =>
    new CliFailure(`no EddyDB data directory at ${dir}${rule.canCreate ? '; pass --create to make one' : ''}`);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (rule.create) return;
    throw refuse();
  }
  if (!isDirectory) throw new CliFailure(`${dir} is not a directory; --data-dir names the data directory`);
  if (readdirSync(dir).some((f) => isSegmentName(f) || isSnapshotName(f))) return;
  if (!rule.create) throw refuse();
}
