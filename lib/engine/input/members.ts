/**
 * The one check for members a request object may not hold, shared by the
 * engine's pure parsers and the procedures' input parsers.
 */
import { InvalidInput } from '../../errors.js';

/**
 * Throws InvalidInput "Unknown member 'k'[ in <where>][; expected <expected>]"
 * for the first member of `obj` that `allowed` does not hold. `expected`
 * defaults to the allowed names joined by ", "; null leaves it out.
 */
export function rejectUnknownMembers(
  obj: object,
  allowed: ReadonlySet<string> | readonly string[],
  where?: string,
  expected?: string | null,
): void {
  const ok = (k: string) => ('has' in allowed ? allowed.has(k) : allowed.includes(k));
  for (const key of Object.keys(obj)) {
    if (ok(key)) continue;
    const listed = expected === undefined ? [...allowed].join(', ') : expected;
    throw new InvalidInput(
      `Unknown member '${key}'${where ? ` in ${where}` : ''}${listed === null ? '' : `; expected ${listed}`}`,
    );
  }
}
