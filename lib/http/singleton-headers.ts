/**
 * Headers a request may carry once. For a repeated Content-Type or
 * Authorization line node keeps the first value and drops the others, while
 * a proxy in front of us may act on another one; such a request is refused
 * rather than guessed at. Repeats with the same value are harmless and pass.
 * (Node itself refuses repeated Content-Length and Transfer-Encoding.)
 */
import { InvalidInput, UnsupportedMedia, type DbError } from '../errors.js';
import { showHeader } from './content-type.js';

/** A Map, so a header named like an Object.prototype member (`isPrototypeOf`) finds nothing. */
const REFUSAL: ReadonlyMap<string, (values: string) => DbError> = new Map<string, (values: string) => DbError>([
  ['content-type', (v: string) => new UnsupportedMedia(`Content-Type is sent more than once with different values (${v}); send one media type`)],
  ['authorization', () => new InvalidInput('Authorization is sent more than once with different values; send it once')],
]);

const NAME_LENGTHS: ReadonlySet<number> = new Set([...REFUSAL.keys()].map((name) => name.length));

/**
 * Throws when `rawHeaders` (node's flat name/value list) repeats a singleton
 * header with a different value: 415 for Content-Type (naming the values),
 * 400 for Authorization (whose values are secrets and are not repeated).
 */
export function checkSingletonHeaders(rawHeaders: readonly string[] | undefined): void {
  if (!rawHeaders) return;
  let seen: Map<string, string> | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const given = rawHeaders[i]!;
    // Most headers are none of them; their length says so without lower-casing them.
    if (!NAME_LENGTHS.has(given.length)) continue;
    const name = given.toLowerCase();
    const refuse = REFUSAL.get(name);
    if (!refuse) continue;
    seen ??= new Map();
    const first = seen.get(name);
    const value = rawHeaders[i + 1]!;
    if (first !== undefined && first !== value) throw refuse(`${showHeader(first)}, ${showHeader(value)}`);
    seen.set(name, value);
  }
}
