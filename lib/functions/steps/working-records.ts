/**
 * How steps read their inputs for a working record and write a result into
 * the working records, the same way in every family.
 *
 * Output rules (protocol.md 4.3, BcryptHash: "adds hash to every working
 * record (creates one if empty)"):
 * - `writeEach` (crypto, encoding, Embed): the value is computed per working
 *   record (its inputs resolved against that record) and written under
 *   `output_field` on a copy of it; with no working records the step makes
 *   one record holding only the output, its inputs resolved against the
 *   parameters.
 * - `writeOutput` (KV, concurrency, HTTP, e-mail): one value, computed once,
 *   written into every working record (one record holding only it when
 *   there are none).
 */
import { isPlainObject, isTypedWrapper, type Fields, type Value } from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import type { Template } from '../template.js';
import type { Execution, Row } from './step.js';

/** Largest text or byte input a crypto or encoding step takes (what a request body could carry anyway). */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** A copy of `row` with `value` at the dotted `path` (objects on the way copied, non-objects replaced). */
export function withField(row: Fields, path: readonly string[], value: Value): Fields {
  const [head, ...rest] = path;
  const out: Record<string, Value> = { ...row };
  if (rest.length === 0) {
    out[head!] = value;
  } else {
    const inner = Object.hasOwn(row, head!) ? row[head!] : undefined;
    out[head!] = withField(isPlainObject(inner) ? (inner as Fields) : {}, rest, value);
  }
  return out;
}

/** Every working record with `value` at `path`; one record holding only it when there are none. */
export function writeOutput(rows: readonly Row[], path: readonly string[], value: Value): Row[] {
  return rows.length === 0 ? [withField({}, path, value)] : rows.map((row) => withField(row, path, value));
}

/** Runs `compute` for every working record (or once, on none) and writes its result under `path`. */
export async function writeEach(
  rows: readonly Row[],
  path: readonly string[],
  compute: (row: Row | undefined) => Value | Promise<Value>,
): Promise<Row[]> {
  if (rows.length === 0) return [withField({}, path, await compute(undefined))];
  const out: Row[] = [];
  for (const row of rows) out.push(withField(row, path, await compute(row)));
  return out;
}

/** A typed wrapper's value (`{type: "String", value: "x"}` reads as "x"). */
export function unwrap(value: unknown): unknown {
  return isTypedWrapper(value) ? value.value : value;
}

/** A template's value as text: a string, or a typed wrapper holding one. InvalidInput naming `what` otherwise. */
export function textInput(run: Execution, template: Template, row: Row | undefined, what: string): string {
  const value = unwrap(run.resolve(template, row));
  if (typeof value !== 'string') throw new InvalidInput(`'${what}' must resolve to a string`);
  if (value.length > MAX_INPUT_BYTES) throw new InvalidInput(`'${what}' is longer than ${MAX_INPUT_BYTES} characters`);
  return value;
}

/** A template's value as bytes: text as UTF-8, or binary data (a Binary field). */
export function bytesInput(run: Execution, template: Template, row: Row | undefined, what: string): Buffer {
  const value = unwrap(run.resolve(template, row));
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value !== 'string') throw new InvalidInput(`'${what}' must resolve to a string or binary data`);
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > MAX_INPUT_BYTES) throw new InvalidInput(`'${what}' is larger than ${MAX_INPUT_BYTES} bytes`);
  return bytes;
}

/**
 * The value of a field named by a step member (`hash_field`, `token_field`...): ForEach frames, parameters, then the
 * record.
 */
export function fieldInput(run: Execution, path: readonly string[], row: Row | undefined, what: string): unknown {
  const hit = run.scope(row).lookup(path);
  if (!hit.found) throw new InvalidInput(`'${what}': no field '${path.join('.')}'`);
  return unwrap(hit.value);
}

/** A key or secret's text for this call; InvalidInput naming `what` when empty (never echoing it). */
export function secretText(run: Execution, template: Template, row: Row | undefined, what: string): string {
  const text = textInput(run, template, row, what);
  if (text === '') throw new InvalidInput(`'${what}' must not be empty`);
  return text;
}

/** Text from bytes that must be UTF-8 (decoders fail closed on anything else). */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
