/**
 * The request headers the Dispatcher reads, found in one pass over node's
 * raw name/value list (node builds its `headers` object on first use, which
 * costs more than a read's other look-ups together). Values are what node's
 * `headers` object holds: the first Authorization and Content-Type, the
 * others joined with ", ".
 *
 * Authorization and Content-Type may be sent once. For a repeat node keeps
 * the first value and drops the others, while a proxy in front of us may act
 * on another one; such a request is refused rather than guessed at. Repeats
 * with the same value are harmless and pass. (Node itself refuses repeated
 * Content-Length and Transfer-Encoding.)
 */
import { InvalidInput, UnsupportedMedia, type DbError } from '../../errors.js';
import { showHeader } from '../wire/content-type.js';

/** 415 for Content-Type (naming the values), 400 for Authorization (whose values are secrets and are not repeated). */
const REFUSAL = {
  'content-type': (v: string): DbError =>
    new UnsupportedMedia(`Content-Type is sent more than once with different values (${v}); send one media type`),
  authorization: (): DbError =>
    new InvalidInput('Authorization is sent more than once with different values; send it once'),
};

export interface ReadHeaders {
  authorization?: string;
  contentType?: string;
  accept?: string;
  acceptEncoding?: string;
  forwardedFor?: string;
  /** `X-EddyDB-Min-Seq`: on a cluster node, answer only once this seq is applied (read-your-writes). */
  minSeq?: string;
}

type Slot = keyof ReadHeaders;

/** Lower-case name -> slot, and whether node keeps only the first of its repeats. */
const SLOTS: ReadonlyMap<string, { slot: Slot; firstOnly: boolean }> = new Map([
  ['authorization', { slot: 'authorization', firstOnly: true }],
  ['content-type', { slot: 'contentType', firstOnly: true }],
  ['accept', { slot: 'accept', firstOnly: false }],
  ['accept-encoding', { slot: 'acceptEncoding', firstOnly: false }],
  ['x-forwarded-for', { slot: 'forwardedFor', firstOnly: false }],
  ['x-eddydb-min-seq', { slot: 'minSeq', firstOnly: true }],
] as const);

const NAME_LENGTHS: ReadonlySet<number> = new Set([...SLOTS.keys()].map((n) => n.length));

/** Reads `raw` (node's flat list); throws on a singleton header repeated with another value. */
export function readRawHeaders(raw: readonly string[]): ReadHeaders {
  const out: ReadHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const given = raw[i]!;
    // Most headers are none of these; their length says so without lower-casing them.
    if (!NAME_LENGTHS.has(given.length)) continue;
    const name = given.toLowerCase();
    const known = SLOTS.get(name);
    if (!known) continue;
    const value = raw[i + 1]!;
    const first = out[known.slot];
    if (first === undefined) out[known.slot] = value;
    else if (!known.firstOnly) out[known.slot] = first + ', ' + value;
    else if (first !== value) throw REFUSAL[name as keyof typeof REFUSAL](`${showHeader(first)}, ${showHeader(value)}`);
  }
  return out;
}

/**
 * The first value of the header named `lowerName` (lower case) in node's raw name/value list, read without the
 * headers object. The length is compared first: most headers are not the one looked for.
 */
export function rawHeader(raw: readonly string[], lowerName: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.length === lowerName.length && raw[i]!.toLowerCase() === lowerName) return raw[i + 1];
  return undefined;
}

/** Whether node's raw name/value list holds a header named `lowerName` (lower case). */
export function hasRawHeader(raw: readonly string[], lowerName: string): boolean {
  return rawHeader(raw, lowerName) !== undefined;
}

/** The same from node's `headers` object, for a transport without the raw list. */
export function readHeaderObject(headers: Readonly<Record<string, string | string[] | undefined>>): ReadHeaders {
  const out: ReadHeaders = {};
  for (const [name, { slot }] of SLOTS) {
    const given = headers[name];
    const value = Array.isArray(given) ? given[0] : given;
    if (value !== undefined) out[slot] = value;
  }
  return out;
}
