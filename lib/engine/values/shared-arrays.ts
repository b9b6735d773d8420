/**
 * Short arrays of short strings shared between records, as short strings
 * are (own-string.ts). A collection repeats small lists from a small
 * vocabulary (tags, roles, flags): each record kept its own frozen copy, an
 * array and its elements (56-72 bytes for one to three strings), where one
 * copy can serve every record, since stored arrays are frozen and never
 * changed in place. One direct-mapped table of SHARED_SLOTS arrays, each
 * slot chosen by a hash of the strings, hands out one copy per list; a list
 * that meets another in its slot only loses its sharing.
 */
import { MAX_SHARED_LENGTH } from './own-string.js';

/** Arrays longer than this are not shared. */
export const MAX_SHARED_ITEMS = 8;
const SHARED_SLOTS = 1 << 12;
const shared: Array<readonly string[] | undefined> = new Array<undefined>(SHARED_SLOTS).fill(undefined);

/**
 * The array equal to `array` that other stored values already use, or
 * `array` itself, frozen, when none is at hand. Only for an array of at most
 * MAX_SHARED_ITEMS strings of at most MAX_SHARED_LENGTH characters each
 * (sharedArrayOf tells); REQUIRES that nothing else holds `array` to change
 * it (a fresh decode or copy).
 */
export function sharedArray(array: string[]): readonly string[] {
  let hits = 0x811c9dc5 ^ array.length;
  for (const item of array) {
    for (let i = 0; i < item.length; i++) hits = Math.imul(hits ^ item.charCodeAt(i), 0x01000193);
    hits = Math.imul(hits ^ 0xffff, 0x01000193);
  }
  const slot = (hits >>> 0) & (SHARED_SLOTS - 1);
  const have = shared[slot];
  if (have !== undefined && sameItems(have, array)) return have;
  const frozen = Object.freeze(array);
  shared[slot] = frozen;
  return frozen;
}

function sameItems(have: readonly string[], array: readonly string[]): boolean {
  if (have.length !== array.length) return false;
  for (let i = 0; i < array.length; i++) if (have[i] !== array[i]) return false;
  return true;
}

/** True when `array` is one sharedArray takes: a few short strings, or none. */
export function isShareableArray(array: readonly unknown[]): array is string[] {
  if (array.length > MAX_SHARED_ITEMS) return false;
  for (const item of array) if (typeof item !== 'string' || item.length > MAX_SHARED_LENGTH) return false;
  return true;
}
