/**
 * Validation of field paths named by queries (filter fields, sort keys,
 * projections, join fields).
 *
 * A path is a non-empty string of at most MAX_FIELD_PATH_LENGTH characters
 * made of dot-separated, non-empty segments; no segment may be a
 * prototype-polluting name (`__proto__`, `constructor`, `prototype`).
 * Resolving a path against a record is `getPath` in match.ts.
 */
import { InvalidInput } from '../../errors.js';
import { MAX_FIELD_PATH_LENGTH } from '../input/limits.js';
import { assertSafeKey } from '../values/index.js';
import { shown } from './describe-input.js';

/**
 * Returns `raw` as a validated field path.
 * Throws InvalidInput naming `where` (e.g. "filter.content") when `raw` is
 * not a non-empty string, is too long, has an empty segment, or contains a
 * hostile name.
 */
export function parseFieldPath(raw: unknown, where: string): string {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new InvalidInput(`Invalid field name at ${where}: expected a non-empty string, got ${shown(raw)}`);
  }
  if (raw.length > MAX_FIELD_PATH_LENGTH) {
    throw new InvalidInput(
      `Invalid field name at ${where}: ${raw.length} characters; at most ${MAX_FIELD_PATH_LENGTH} are allowed`,
    );
  }
  for (const segment of raw.split('.')) {
    if (segment.length === 0) throw new InvalidInput(`Invalid field path ${shown(raw)} at ${where}: empty segment`);
    assertSafeKey(segment, where);
  }
  return raw;
}
