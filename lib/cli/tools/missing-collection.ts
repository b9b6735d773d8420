/**
 * The refusal for a collection that is not in the database (export, and
 * import without --create), naming the closest existing one or the ones
 * there are, so a typo is caught instead of exporting nothing or importing
 * into a new collection nobody reads.
 */
import type { Database } from '../../engine/index.js';
import { closest } from '../args/closest.js';
import { CliFailure } from '../failure.js';

/** Throws CliFailure when `db` has no collection `name`; `hint` ends the message (`pass --create to make it`). */
export function requireCollection(db: Database, dataDir: string, name: string, hint?: string): void {
  if (db.collections.exists(name)) return;
  const names = db.collections.list(true);
  const near = closest(name, names);
  const listed =
    names.length === 0
      ? 'it has no collections'
      : `it has ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', ...' : ''}`;
  throw new CliFailure(
    `collection '${name}' does not exist in ${dataDir} ` +
      `(${near ? `did you mean '${near}'?` : listed})${hint ? `; ${hint}` : ''}`,
  );
}
