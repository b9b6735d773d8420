/**
 * 64-bit integers (product.md: an Integer is a 64-bit signed integer).
 *
 * An integer within ±(2^53 - 1) lives as a JS number; one beyond it, up to
 * the i64 range [-2^63, 2^63 - 1], as a JS bigint. That split is an
 * invariant of stored values: a bigint is never a safe integer, so one
 * integer has one representation and numbers stay the fast common case.
 * Nothing here rounds: a value that does not fit is refused, not clipped.
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** True when `big` fits a 64-bit signed integer. */
export function isInt64(big: bigint): boolean {
  return big >= INT64_MIN && big <= INT64_MAX;
}

/** The stored form of an exact integer: a number when it is safe, else the bigint itself. */
export function integerValue(big: bigint): number | bigint {
  return big >= SAFE_MIN && big <= SAFE_MAX ? Number(big) : big;
}

/** A bigint in the safe range becomes a number; anything else is returned as is. */
export function exactNumber(value: unknown): unknown {
  return typeof value === 'bigint' ? integerValue(value) : value;
}

/** True for an exact integer: a safe-integer number or a bigint. */
export function isExactInteger(value: unknown): value is number | bigint {
  return typeof value === 'bigint' || Number.isSafeInteger(value);
}

/**
 * The float an integer literal denotes, or undefined when it would be
 * rounded. A literal is accepted when a float holds it exactly (2^60), or
 * when it is how JS writes a float (`String(2 ** 60)` is
 * "1152921504606847000"): a whole float beyond 2^53 comes back from any
 * JSON writer that way, and must be readable again as that same float.
 */
export function bigintAsFloat(big: bigint): number | undefined {
  const approximate = Number(big);
  if (!Number.isFinite(approximate)) return undefined;
  return BigInt(approximate) === big || String(approximate) === big.toString() ? approximate : undefined;
}

/** Digits of a bigint for messages, cut short so a huge literal does not flood them. */
export function shownInteger(big: bigint): string {
  const digits = big.toString();
  return digits.length > 24 ? `${digits.slice(0, 22)}… (${digits.replace('-', '').length} digits)` : digits;
}
