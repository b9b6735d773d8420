/**
 * Where `eddydb import` reads records from: NDJSON (one record per line) or
 * one JSON array (`--format json`, read whole into memory). Each yields
 * items labelled for error messages (`line 3`, `record 3`). Input in the
 * other format is refused once, at the first item, with the flag that
 * reads it, instead of one error per line:
 * a `[` first in NDJSON mode is a JSON array; anything but an array in JSON
 * mode is not one.
 */
import { createInterface } from 'node:readline';
import { fromJson } from '../../engine/index.js';
import { CliFailure } from '../failure.js';

export type ImportItem =
  { readonly label: string; readonly record: unknown } | { readonly label: string; readonly error: string };

export const JSON_ARRAY_REFUSAL =
  'input is a JSON array; import expects NDJSON (one record per line); use --format json to read an array';

/** NDJSON items, one per non-blank line. Throws CliFailure when the input is a JSON array. */
export async function* ndjsonItems(input: NodeJS.ReadableStream): AsyncGenerator<ImportItem> {
  let line = 0;
  let isFirst = true;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    const trimmed = text.trim();
    if (trimmed === '') continue;
    if (isFirst && trimmed.startsWith('[')) throw new CliFailure(JSON_ARRAY_REFUSAL);
    isFirst = false;
    try {
      yield { label: `line ${line}`, record: fromJson(text) };
    } catch {
      yield { label: `line ${line}`, error: 'not valid JSON' };
    }
  }
}

/** The elements of one JSON array. Throws CliFailure when the input is not valid JSON or not an array. */
export async function* jsonArrayItems(input: NodeJS.ReadableStream): AsyncGenerator<ImportItem> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  const looksLikeNdjson = text.trimStart().startsWith('{');
  const ndjsonHint = looksLikeNdjson ? '; for NDJSON (one record per line) leave out --format json' : '';
  let value: unknown;
  try {
    value = fromJson(text);
  } catch (err) {
    throw new CliFailure(`input is not valid JSON (${(err as Error).message})${ndjsonHint}`);
  }
  if (!Array.isArray(value)) throw new CliFailure(`input is not a JSON array of records${ndjsonHint}`);
  for (let i = 0; i < value.length; i++) yield { label: `record ${i + 1}`, record: value[i] };
}
