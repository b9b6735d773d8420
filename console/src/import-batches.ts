/**
 * Import of records from a file: a JSON array or NDJSON read into items (each its own text, so numbers stay
 * exact), cut into batches under the server's limits, and each batch sent through POST /api/batch/insert/{c}.
 *
 * A batch answer names a failed item only by its id, and an item without one is reported with a null id. So each
 * batch is staged in a transaction first: when every failure can be matched to its item the batch is committed,
 * otherwise it is rolled back and its items are inserted one by one, so that every failed line is named with the
 * server's message. No record is dropped without saying so.
 */
import { enc } from './api.js';
import { arrayElements, minifyJson } from './json-text.js';
import { apiResponse, apiText, errorOf } from './raw-api.js';

/** One record of the file: where it was (for the report), its JSON text, and its id when it names one. */
export interface ImportItem {
  where: string;
  text: string;
  id?: string;
}

export interface ImportFailure {
  where: string;
  id?: string;
  error: string;
  /** The record's text, to download the failures and try again. */
  text?: string;
}

/** Records per batch request, and bytes: far below the server's max_batch_size (10,000) and body limit (32 MiB). */
export const BATCH_RECORDS = 500;
export const BATCH_BYTES = 4 * 1024 * 1024;

function idOf(text: string): string | undefined {
  const id = (JSON.parse(text) as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

function isObjectText(text: string): boolean {
  return text.startsWith('{');
}

/**
 * The items of a file and the lines that could not be read. A text starting with `[` is a JSON array (it must
 * parse whole); anything else is NDJSON, one record per non-blank line.
 */
export function readImportFile(text: string): { items: ImportItem[]; unreadable: ImportFailure[] } {
  text = text.replace(/^\uFEFF/, ''); // a byte order mark some editors write
  const items: ImportItem[] = [];
  const unreadable: ImportFailure[] = [];
  const add = (where: string, raw: string) => {
    if (!isObjectText(raw)) unreadable.push({ where, error: 'not a JSON object', text: raw });
    else items.push({ where, text: raw, id: idOf(raw) });
  };
  if (text.trimStart().startsWith('[')) {
    try {
      JSON.parse(text);
    } catch (err) {
      unreadable.push({ where: 'the file', error: `not a JSON array: ${(err as Error).message}` });
      return { items, unreadable };
    }
    arrayElements(text).forEach((raw, i) => add(`item ${i + 1}`, raw));
    return { items, unreadable };
  }
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      JSON.parse(line);
    } catch (err) {
      unreadable.push({ where: `line ${i + 1}`, error: `not JSON: ${(err as Error).message}`, text: line });
      return;
    }
    add(`line ${i + 1}`, minifyJson(line));
  });
  return { items, unreadable };
}

/** The items cut into batches of at most BATCH_RECORDS records and about BATCH_BYTES. */
export function batchesOf(items: ImportItem[]): ImportItem[][] {
  const batches: ImportItem[][] = [];
  let current: ImportItem[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length && (current.length >= BATCH_RECORDS || bytes + item.text.length > BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.text.length + 12;
  }
  if (current.length) batches.push(current);
  return batches;
}

interface BatchAnswer {
  successful: string[];
  failed: { id: string | null; error: string }[];
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one batch request, waiting and trying again while the server says it is busy (503). */
async function sendBatch(path: string, body: string) {
  for (let attempt = 0; ; attempt++) {
    const answer = await apiResponse('POST', path, body);
    if (answer.status !== 503 || attempt >= 4) return answer;
    const retry = (JSON.parse(answer.text) as { retry_after_seconds?: number }).retry_after_seconds ?? 1;
    await wait(Math.min(10, Math.max(0.2, retry)) * 1000);
  }
}

/** The failures of a batch answer matched to their items, or undefined when one cannot be matched. */
function matchFailures(batch: ImportItem[], failed: BatchAnswer['failed']): ImportFailure[] | undefined {
  const out: ImportFailure[] = [];
  for (const f of failed) {
    const items = f.id === null ? [] : batch.filter((i) => i.id === f.id);
    if (items.length !== 1) return undefined;
    out.push({ where: items[0]!.where, id: f.id ?? undefined, error: f.error, text: items[0]!.text });
  }
  return out;
}

/** Inserts the items one at a time, each failure with the server's message. */
async function insertOneByOne(collection: string, batch: ImportItem[]): Promise<ImportFailure[]> {
  const failures: ImportFailure[] = [];
  for (const item of batch) {
    const answer = await apiResponse('POST', `/api/insert/${enc(collection)}`, item.text);
    if (answer.status >= 300) failures.push({ ...item, error: errorOf(answer).message });
  }
  return failures;
}

/** Inserts one batch; answers the failures (an empty list when every record went in). */
export async function insertBatch(collection: string, batch: ImportItem[]): Promise<ImportFailure[]> {
  const body = `{"inserts":[${batch.map((i) => `{"data":${i.text}}`).join(',')}]}`;
  const tx = JSON.parse(await apiText('POST', '/api/transactions', '{}')) as { transaction_id: string };
  const txPath = `/api/transactions/${enc(tx.transaction_id)}`;
  const answer = await sendBatch(`/api/batch/insert/${enc(collection)}?transaction_id=${enc(tx.transaction_id)}`, body);
  let parsed: BatchAnswer | undefined;
  try {
    parsed = JSON.parse(answer.text) as BatchAnswer;
  } catch {
    parsed = undefined;
  }
  if (!parsed || !Array.isArray(parsed.failed) || !Array.isArray(parsed.successful)) {
    await apiResponse('POST', `${txPath}/rollback`, '{}');
    const error = errorOf(answer).message;
    return batch.map((item) => ({ ...item, error }));
  }
  const matched = matchFailures(batch, parsed.failed);
  if (!matched) {
    await apiResponse('POST', `${txPath}/rollback`, '{}');
    return insertOneByOne(collection, batch);
  }
  const commit = await apiResponse('POST', `${txPath}/commit`, '{}');
  if (commit.status >= 300) {
    const error = `the batch was not committed: ${errorOf(commit).message}`;
    return batch.map((item) => ({ ...item, error }));
  }
  return matched;
}
