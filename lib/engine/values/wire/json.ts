/**
 * JSON text of wire values, both ways, without changing a number.
 *
 * Each direction has a fast path through the built-in JSON and an exact
 * path (json-exact.ts) taken only when the built-in would be wrong: reading
 * text whose parse holds a number beyond 2^53 (an integer that big may have
 * been rounded), writing a value that holds a bigint (JSON.stringify throws)
 * or binary (written as arrays of byte numbers, protocol.md 1.4 rule 6;
 * Buffers would otherwise become `{type: "Buffer", data}`).
 */
import { InvalidInput } from '../../../errors.js';
import { parseExactJson, writeExactJson } from './json-exact.js';

/**
 * Whether `value`, as JSON.parse made it, holds a number beyond
 * ±(2^53 - 1). Only then can the text have spelled an integer that
 * JSON.parse rounded (every integer below 2^53 is exact in a double, every
 * one from 2^53 up parses to a double at least 2^53), so only then is it
 * read again by the exact parser, which reads such a float the same.
 * Walking the parsed value costs a sixth of scanning the text for long
 * digit runs on a batch of vectors (1.0 against 6.5 ms for 3.8 MB), whose
 * every number prints 16-17 digits. Its own stack: JSON.parse nests deeper
 * than the call stack goes.
 */
export function hasUnsafeNumber(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) return true;
    } else if (Array.isArray(v)) {
      // Numbers in place: a vector's hundreds of them are never pushed.
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'number') {
          if (x > Number.MAX_SAFE_INTEGER || x < -Number.MAX_SAFE_INTEGER) return true;
        } else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
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
  // The reviver costs time; only text that could spell __proto__ needs it.
  if (!text.includes('__proto__') && !text.includes('\\u')) return parseBuiltIn;
  return parseRejectingProto;
}

function parseBuiltIn(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return hasUnsafeNumber(value) ? parseExactJson(text) : value;
}

function parseRejectingProto(text: string): unknown {
  const value: unknown = JSON.parse(text, rejectProto);
  return hasUnsafeNumber(value) ? parseExactJson(text) : value;
}
