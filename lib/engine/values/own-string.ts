/**
 * Strings that own their text. msgpackr's native reader decodes a run of
 * ASCII strings as one string and hands out slices of it (V8 makes a
 * substring of 13 characters or more a slice pointing into its parent), so a
 * stored record built from a MessagePack log frame, snapshot frame or request
 * body kept the whole decoded text alive: about 150-300 bytes more per record
 * than the same record from JSON. So the storage codec and the MessagePack
 * request decoder (lib/http/codec.ts) copy them; JSON.parse makes no slices.
 */

/** V8 copies substrings shorter than this (SlicedString::kMinLength); longer ones are slices. */
const MIN_SLICE_LENGTH = 13;

/** `s`, or an equal string with its own storage when `s` could be a slice. */
export function ownString(s: string): string {
  // join writes its parts into one new flat string.
  return s.length < MIN_SLICE_LENGTH ? s : [s.slice(0, -1), s.slice(-1)].join('');
}

/**
 * `value` with every string in it (through plain objects and arrays) given
 * its own storage, changed in place: only for a fresh decode, which nothing
 * else holds yet. Class instances (a decoded Tagged, a Buffer) are left as
 * they are.
 */
export function ownStrings(value: unknown): unknown {
  if (typeof value === 'string') return ownString(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = ownStrings(value[i]);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    const obj = value as Record<string, unknown>;
    // for-in over a decoded map (own keys only: its prototype is Object.prototype) allocates no key list.
    for (const key in obj) obj[key] = ownStrings(obj[key]);
  }
  return value;
}
