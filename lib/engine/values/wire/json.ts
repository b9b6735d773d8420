/**
 * JSON text of wire values, both ways, without changing a number.
 *
 * Each direction has a fast path through the built-in JSON and an exact
 * path (json-exact.ts) taken only when the built-in would be wrong: reading
 * text that holds an integer of 16+ digits (the only way to spell one
 * beyond 2^53), writing a value that holds a bigint (JSON.stringify throws)
 * or binary (written as arrays of byte numbers, protocol.md 1.4 rule 6;
 * Buffers would otherwise become `{type: "Buffer", data}`).
 */
import { InvalidInput } from '../../../errors.js';
import { parseExactJson, writeExactJson } from './json-exact.js';

/** Length of the digit runs that send text to the exact parser. */
const LONG_RUN = 16;

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether `text` holds LONG_RUN digits in a row that are not part of a
 * number with a fraction or an exponent: a float's digits, however many
 * (a vector's components print 16-17 of them), read the same by JSON.parse
 * and the exact parser. Only every LONG_RUN-th character is looked at,
 * since every such run covers one of them; a digit there is measured both
 * ways. Faster than a regular expression over a large batch body, which
 * tests one position at a time.
 */
export function hasLongIntegerRun(text: string): boolean {
  for (let i = LONG_RUN - 1; i < text.length; i += LONG_RUN) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    // A float's fraction or exponent, however long: its end need not be found.
    if (fractionOrExponent(text, start)) continue;
    let end = i;
    while (end + 1 < text.length && isDigit(text.charCodeAt(end + 1))) end++;
    if (end - start + 1 >= LONG_RUN && !integerPart(text, end)) return true;
    // Go on from the last looked-at position inside this run.
    i = end - ((end - (LONG_RUN - 1)) % LONG_RUN);
  }
  return false;
}

const DOT = 0x2e,
  PLUS = 0x2b,
  MINUS = 0x2d;
const isE = (code: number) => code === 0x65 || code === 0x45;

/** Whether the digit run starting at `start` is a float's fraction or exponent (after `.`, `e`, `e+` or `e-`). */
function fractionOrExponent(text: string, start: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (before === DOT || isE(before)) return true;
  return (before === PLUS || before === MINUS) && isE(text.charCodeAt(start - 2));
}

/** Whether the digit run ending at `end` is a float's integer part (before `.`, `e` or `E`). */
function integerPart(text: string, end: number): boolean {
  const after = text.charCodeAt(end + 1);
  return after === DOT || isE(after);
}

/**
 * JSON text of a wire value: bigints as their exact digits, binary as
 * arrays of byte numbers, everything else as `JSON.stringify` writes it.
 * Throws TypeError on a circular structure.
 */
export function toJson(value: unknown): string {
  let fast: string | undefined;
  try {
    fast = JSON.stringify(value);
  } catch (err) {
    // A bigint; the exact writer raises the real error again for anything else (a circular structure).
    if (err instanceof TypeError) return writeExactJson(value)!;
    throw err;
  }
  if (fast === undefined || !fast.includes('"type":"Buffer"')) return fast!;
  return writeExactJson(value)!;
}

function rejectProto(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
  return value;
}

/**
 * Parses JSON text, keeping integers beyond ±(2^53 - 1) exact as bigints
 * (see `parseExactJson`). Throws InvalidInput for a `__proto__` key
 * anywhere, and SyntaxError for text that is not JSON.
 */
export function fromJson(text: string): unknown {
  return jsonParser(text)(text);
}

/**
 * The parse fromJson() uses for `text`, chosen by scanning it; call it with
 * the same text. For text large enough that a caller lets the event loop go
 * between the two: the scans are a small part of the parse's time.
 */
export function jsonParser(text: string): (text: string) => unknown {
  if (hasLongIntegerRun(text)) return parseExactJson;
  // The reviver costs time; only text that could spell __proto__ needs it.
  if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse;
  return parseRejectingProto;
}

function parseRejectingProto(text: string): unknown {
  return JSON.parse(text, rejectProto);
}
