/**
 * One message of the cluster's stream: one committed batch, as JSON, at the
 * stream sequence equal to the batch's seq. It is both the replicated log
 * (replicas apply `log`) and the public change feed (other systems read
 * `changes`); docs/cluster.md documents it.
 *
 *   { "sequence": 42, "time": "2026-01-02T03:04:05.678Z", "node": "<primary's node id>",
 *     "changes": [ { "collection": "users", "operation": "insert", "id": "…", "record": { … } } ],
 *     "collection": "users", "operation": "insert", "id": "…", "record": { … },   (a batch of one change)
 *     "log": "<base64: the batch as the log stores it>" }
 *
 * `operation` is `insert`, `update`, `delete` (record `null`) or `drop` (a
 * collection dropped, no id). Records are the untyped wire form (what
 * `GET /api/find` answers without typed values). `origin`/`origin_seq` are
 * present on a batch a ripple peer sent.
 */
import { decodeBatch, recordToWire, toJson, type CommitInfo, type LoggedBatch } from '../engine/index.js';
import { batchSubject } from './names.js';

export type FeedOperation = 'insert' | 'update' | 'delete' | 'drop';

/** One change of the feed, as consumers read it. */
export interface FeedChange {
  readonly collection: string;
  readonly operation: FeedOperation;
  readonly id?: string;
  readonly record?: Record<string, unknown> | null;
}

/** A message ready to publish: its subject and JSON body. */
export interface FeedMessage {
  readonly subject: string;
  readonly body: string;
}

/**
 * The message of `batch`, whose changes are `info` and whose log payload (the
 * frame payload the local log holds) is `payload`.
 */
export function feedMessage(
  cluster: string,
  batch: LoggedBatch,
  info: CommitInfo,
  payload: Uint8Array,
  node: string,
  now: number,
): FeedMessage {
  const changes: FeedChange[] = [];
  const collections = new Set<string>();
  for (const change of info.changes) {
    collections.add(change.collection);
    changes.push({
      collection: change.collection,
      operation: change.event,
      id: change.id,
      record: change.fields ? recordToWire(change.fields, { typed: false }) : null,
    });
  }
  for (const effect of batch.effects) {
    if (effect.kind !== 'dropCollection') continue;
    collections.add(effect.name);
    changes.push({ collection: effect.name, operation: 'drop' });
  }
  const body: Record<string, unknown> = { sequence: batch.seq, time: new Date(now).toISOString(), node, changes };
  if (changes.length === 1) Object.assign(body, changes[0]);
  if (batch.origin !== undefined) Object.assign(body, { origin: batch.origin, origin_seq: batch.originSeq });
  body.log = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('base64');
  return { subject: batchSubject(cluster, collections), body: toJson(body) };
}

/** What a replica applies from a message: its batch (seq from the message body) or why it cannot. */
export function batchOfMessage(body: Uint8Array): LoggedBatch {
  const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as {
    sequence?: unknown;
    log?: unknown;
    origin?: unknown;
    origin_seq?: unknown;
  };
  if (typeof parsed.sequence !== 'number' || typeof parsed.log !== 'string')
    throw new Error('not an EddyDB batch: no sequence or log');
  const batch = decodeBatch(Buffer.from(parsed.log, 'base64'));
  if (!batch || batch.seq !== parsed.sequence)
    throw new Error(`batch ${String(parsed.sequence)}: its log payload does not decode to that seq`);
  if (typeof parsed.origin === 'string' && typeof parsed.origin_seq === 'number')
    return { ...batch, origin: parsed.origin, originSeq: parsed.origin_seq };
  return batch;
}
