/**
 * JSON text of wire values, both ways, without changing a number.
 *
 * Each direction has a fast path through the built-in JSON and an exact
 * path (json-exact.ts) taken only when the built-in would be wrong: reading
 * text that holds a run of 16+ digits (the only way to spell an integer
 * beyond 2^53), writing a value that holds a bigint (JSON.stringify throws)
 * or binary (written as arrays of byte numbers, protocol.md 1.4 rule 6;
 * Buffers would otherwise become `{type: "Buffer", data}`).
 */
import { InvalidInput } from '../../errors.js';
import { parseExactJson, writeExactJson } from './json-exact.js';

const LONG_DIGIT_RUN = /\d{16}/;

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
  if (LONG_DIGIT_RUN.test(text)) return parseExactJson(text);
  // The reviver costs time; only text that could spell __proto__ needs it.
  if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse(text);
  return JSON.parse(text, rejectProto);
}
