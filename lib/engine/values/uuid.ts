/**
 * The two checks of a UUID value's text.
 *
 * `isUuidShape` is what a UUID value may be: five groups of 8-4-4-4-12 ASCII
 * letters or digits joined by hyphens (36 characters). It follows the real
 * ekoDB server, which accepts more than hexadecimal: the official KV-wrapped
 * functions example stores `b1ffcd00-0d1c-5fg9-8a1a-000000000000`.
 * `isRfc4122Uuid` is the strict check a schema field asks for with
 * `format: "rfc4122"`. Neither changes the text: case is kept as sent.
 */

const SHAPE = /^[0-9A-Za-z]{8}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{12}$/;
/** Hex digits, version 1-8 (RFC 4122 and its successor RFC 9562), variant bits 10 (8, 9, a, b). */
const RFC4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NIL = '00000000-0000-0000-0000-000000000000';
const MAX = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** True when `text` has the 8-4-4-4-12 shape of ASCII letters and digits. */
export function isUuidShape(text: string): boolean {
  return SHAPE.test(text);
}

/**
 * True when `text` is an RFC 4122 UUID: hex digits, a version nibble of 1-8 and
 * the RFC 4122 variant, or one of the two special forms, nil (all zeros) and
 * max (all f).
 */
export function isRfc4122Uuid(text: string): boolean {
  const lower = text.toLowerCase();
  return RFC4122.test(text) || lower === NIL || lower === MAX;
}
