/**
 * How stored strings hold their text: each long string owns it, and short
 * ones are shared between records.
 *
 * Long strings own their text. msgpackr's native reader decodes a run of
 * ASCII strings as one string and hands out slices of it (V8 makes a
 * substring of 13 characters or more a slice pointing into its parent), so a
 * stored record built from a MessagePack log frame, snapshot frame or request
 * body kept the whole decoded text alive: about 150-300 bytes more per record
 * than the same record from JSON. So the storage codec and the MessagePack
 * request decoder (lib/http/wire/codec.ts) copy them; JSON.parse makes no slices.
 */

/** V8 copies substrings shorter than this (SlicedString::kMinLength); longer ones are slices. */
const MIN_SLICE_LENGTH = 13;

/**
 * The last string copied and its copy. A decoded record names its id twice
 * in a row (a snapshot row's key then `fields.id`, a logged put's `id` then
 * `fields.id`): the second gets the first's copy, one string for both,
 * without copying again (a copy costs about 130 ns, a comparison a few).
 */
let lastSource = '';
let lastCopy = '';

/** `text`, or an equal string with its own storage when `text` could be a slice. */
export function ownString(text: string): string {
  if (text.length < MIN_SLICE_LENGTH) return text;
  if (text === lastSource) return lastCopy;
  lastSource = text;
  // join writes its parts into one new flat string.
  lastCopy = [text.slice(0, -1), text.slice(-1)].join('');
  return lastCopy;
}

/**
 * Short values shared between records. A collection repeats short strings
 * (a status, a city, a name, a tag) across many records. JSON.parse shares
 * only those of up to 10 characters (V8 internalizes them) and a MessagePack
 * decode shares none, so each record would keep its own copy (tens of bytes
 * each, more after recovery).
 * One table hands out one copy per value: a direct-mapped cache of
 * SHARED_SLOTS strings, each slot chosen by a hash of the characters. It
 * costs one hash and one comparison per string (a Map lookup cost three times
 * as much, which showed in recovery), it is bounded by construction, and a
 * value that meets another in its slot only loses its sharing, never its text.
 */
export const MAX_SHARED_LENGTH = 16;
const SHARED_SLOTS = 1 << 14;
const shared: Array<string | undefined> = new Array<string | undefined>(SHARED_SLOTS).fill(undefined);

/** `text`, or the equal string other stored values already use, when `text` is short. */
export function sharedString(text: string): string {
  const length = text.length;
  if (length > MAX_SHARED_LENGTH) return text;
  // FNV-1a over the UTF-16 code units.
  let hits = 0x811c9dc5;
  for (let i = 0; i < length; i++) hits = Math.imul(hits ^ text.charCodeAt(i), 0x01000193);
  const slot = (hits >>> 0) & (SHARED_SLOTS - 1);
  const have = shared[slot];
  if (have === text) return have;
  const own = ownString(text);
  shared[slot] = own;
  return own;
}

/** Buffer's own UTF-8 decoder, which toString calls after checking its arguments. */
interface Utf8Slicer {
  utf8Slice(start: number, end: number): string;
}

/**
 * The text of the UTF-8 bytes `bytes[start, end)`, a new flat string (it owns
 * its text); bad bytes read as U+FFFD, as msgpackr and toString read them.
 */
export const utf8Text: (bytes: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Partial<Utf8Slicer>).utf8Slice === 'function'
    ? (bytes, start, end) => (bytes as Buffer & Utf8Slicer).utf8Slice(start, end)
    : (bytes, start, end) => bytes.toString('utf8', start, end);

/**
 * sharedString() of the ASCII text in `bytes[start, end)` (at most
 * MAX_SHARED_LENGTH bytes), read from the bytes: when the table holds it,
 * no string is made at all. Undefined when a byte is not ASCII (the caller
 * decodes the text and asks sharedString).
 */
export function sharedAscii(bytes: Buffer, start: number, end: number): string | undefined {
  // The same FNV-1a as sharedString: ASCII bytes are the string's UTF-16 code units.
  let hits = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte > 0x7f) return undefined;
    hits = Math.imul(hits ^ byte, 0x01000193);
  }
  const slot = (hits >>> 0) & (SHARED_SLOTS - 1);
  const have = shared[slot];
  if (have !== undefined && have.length === end - start && sameText(have, bytes, start)) return have;
  const text = utf8Text(bytes, start, end);
  shared[slot] = text;
  return text;
}

function sameText(text: string, bytes: Buffer, start: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}

/** A string as a stored value keeps it: shared when short, owning its text when long. */
export function storedString(text: string): string {
  return text.length > MAX_SHARED_LENGTH ? ownString(text) : sharedString(text);
}

/**
 * `value` with every string in it (through plain objects and arrays) kept
 * as a stored value keeps it (storedString), changed in place: only for a
 * fresh decode, which nothing else holds yet. Class instances (a decoded
 * Tagged, a Buffer) are left as they are.
 */
export function ownStrings(value: unknown): unknown {
  if (typeof value === 'string') return storedString(value);
  if (value !== null && typeof value === 'object') ownNested(value);
  return value;
}

/**
 * ownStrings() of an array's or plain object's members. Only a string is
 * stored back, and only a container is walked: numbers, booleans and the
 * like are neither: a call and a store for every member would slow the
 * walk a recovery makes over every record.
 */
function ownNested(value: object): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string') value[i] = storedString(item);
      else if (item !== null && typeof item === 'object') ownNested(item);
    }
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    const obj = value as Record<string, unknown>;
    // for-in over a decoded map (own keys only: its prototype is Object.prototype) allocates no key list.
    for (const key in obj) {
      const item = obj[key];
      if (typeof item === 'string') obj[key] = storedString(item);
      else if (item !== null && typeof item === 'object') ownNested(item);
    }
  }
}
