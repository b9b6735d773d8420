/**
 * The strength an operator-chosen admin key (EDDYDB_ADMIN_KEY) can have, as
 * the start checks it: its length times the bits per character of the
 * smallest common alphabet it is written in (hex digits 4, letters and
 * digits about 5.95, base64 and base64url 6, printable ASCII about 6.57).
 * A key needs 128 bits by that count: 32 hex digits, 22 base64url
 * characters, 20 printable ones. Generated keys hold 192 random bits.
 *
 * This is an upper bound, and all a server can know: it refuses keys too
 * short to hold 128 bits, not keys that are long but predictable (a
 * sentence, a repeated word). Use a random key (`openssl rand -hex 24`).
 */

/** Bits an admin key must be able to hold. */
export const MIN_ADMIN_KEY_BITS = 128;

interface Alphabet {
  readonly name: string;
  readonly size: number;
  readonly pattern: RegExp;
}

/**
 * From the smallest: a key is counted in the first one that holds all its
 * characters. No class of mixed-case letters alone: 22 random base64url or
 * alphanumeric characters (128 bits) hold no digit or symbol about one time
 * in a hundred, and such a key must not be refused; the narrower classes
 * left are ones a random key of a wider alphabet practically never falls in.
 */
const ALPHABETS: readonly Alphabet[] = [
  { name: 'decimal digits', size: 10, pattern: /^[0-9]+$/ },
  { name: 'hex digits', size: 16, pattern: /^(?:[0-9a-f]+|[0-9A-F]+)$/ },
  { name: 'lowercase letters', size: 26, pattern: /^[a-z]+$/ },
  { name: 'uppercase letters', size: 26, pattern: /^[A-Z]+$/ },
  { name: 'lowercase letters and digits', size: 36, pattern: /^[0-9a-z]+$/ },
  { name: 'uppercase letters and digits', size: 36, pattern: /^[0-9A-Z]+$/ },
  { name: 'letters and digits', size: 62, pattern: /^[0-9A-Za-z]+$/ },
  { name: 'base64url characters', size: 64, pattern: /^[0-9A-Za-z_-]+$/ },
  // Padding carries no bits: it is dropped before counting (keyCharacters).
  { name: 'base64 characters', size: 64, pattern: /^[0-9A-Za-z+/]+$/ },
];
/** Anything else: printable ASCII, and other characters counted as if they were. */
const ANY: Alphabet = { name: 'characters', size: 95, pattern: /^/ };

export interface KeyStrength {
  /** The most bits the key can hold, rounded down. */
  readonly bits: number;
  /** Characters counted. */
  readonly length: number;
  /** The alphabet it was counted in ("hex digits"...). */
  readonly alphabet: string;
}

/** The key's strength by the rule above. Pure; never keeps or returns the key. */
export function adminKeyStrength(key: string): KeyStrength {
  const chars = [...key.replace(/={1,2}$/, '')];
  const text = chars.join('');
  const alphabet = ALPHABETS.find((a) => a.pattern.test(text)) ?? ANY;
  return { bits: Math.floor(chars.length * Math.log2(alphabet.size)), length: chars.length, alphabet: alphabet.name };
}

/**
 * Why `key` is refused as an admin key (one line naming `source`, never the
 * key), or undefined when it can hold 128 bits.
 */
export function weakAdminKeyReason(key: string, source: string): string | undefined {
  const s = adminKeyStrength(key);
  if (s.bits >= MIN_ADMIN_KEY_BITS) return undefined;
  return (
    `${source} is too weak: ${s.length} ${s.alphabet} hold at most ${s.bits} bits, and an admin key needs ` +
    `${MIN_ADMIN_KEY_BITS} ` +
    `(32 hex digits or 22 base64url characters; \`openssl rand -hex 24\` makes a 192-bit one)`
  );
}
