/**
 * Joining (or rejoining) a cluster at startup: does the local state follow
 * the cluster's log, or must the node start again from the cluster's
 * snapshot?
 *
 * The local log is a prefix of the stream when its last batch is the
 * stream's message at the same seq; then the node reads the stream after it.
 * Otherwise the data directory is set aside (`replaced-<time>/`) and the
 * node starts from the stored snapshot (or from nothing, while the stream
 * still starts at 1), then reads the stream after it:
 *
 * - a new node whose stream no longer starts at 1;
 * - a node whose log ends before the stream's first message (far behind);
 * - a node holding batches the stream does not (a primary stopped before
 *   the cluster had its last groups: its unacknowledged tail) or different
 *   ones at the same seq: those batches are dropped, and the log says which.
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { encodeBatch, isSegmentName, isSnapshotName, type LoggedBatch } from '../engine/index.js';
import { batchOfMessage } from './feed-message.js';

/** What the planner reads of the local database and of the stream. */
export interface RejoinSources {
  /** The local state's seq. */
  readonly localSeq: number;
  /** The local log's batch `seq`; undefined when the log no longer holds it (a snapshot covers it). */
  localBatch(seq: number): Promise<LoggedBatch | undefined>;
  readonly stream: { readonly first: number; readonly last: number };
  /** The stream's message body at `seq`; undefined when purged. */
  streamBody(seq: number): Promise<Uint8Array | undefined>;
}

export type RejoinPlan =
  | { readonly kind: 'follow' }
  | { readonly kind: 'reset'; readonly reason: string; readonly dropped?: { from: number; to: number } }
  | { readonly kind: 'refuse'; readonly reason: string };

/** How far back the planner looks for the last batch the node and the stream agree on. */
const MAX_COMPARE = 1000;

export async function planRejoin(src: RejoinSources): Promise<RejoinPlan> {
  const { localSeq: local, stream } = src;
  const empty = stream.last === 0 || stream.last < stream.first;
  if (local === 0) {
    return stream.first <= 1 || empty
      ? { kind: 'follow' }
      : { kind: 'reset', reason: "a new node: starting from the cluster's snapshot" };
  }
  if (empty && stream.last === 0)
    return {
      kind: 'refuse',
      reason:
        `the cluster's log is empty but this data directory holds seq ${local}: a cluster starts from empty data ` +
        'directories (load data through the primary once it runs), or move this data directory away to join',
    };
  if (local < stream.first - 1)
    return {
      kind: 'reset',
      reason: `the local log ends at seq ${local}, before the cluster's log starts (seq ${stream.first})`,
    };
  const agreed = await lastAgreed(src, Math.min(local, stream.last));
  if (agreed === Math.min(local, stream.last) && local <= stream.last) return { kind: 'follow' };
  const from = agreed + 1;
  return {
    kind: 'reset',
    reason:
      `batches ${from}..${local} of the local log are not the cluster's (the cluster's log ends at seq ` +
      `${stream.last}): a primary's writes the cluster never acknowledged; they are dropped`,
    dropped: { from, to: local },
  };
}

/** The highest seq at or below `top` where the local log and the stream hold the same batch (bounded search). */
async function lastAgreed(src: RejoinSources, top: number): Promise<number> {
  const floor = Math.max(src.stream.first - 1, top - MAX_COMPARE);
  for (let seq = top; seq > floor; seq--) {
    const [mine, body] = await Promise.all([src.localBatch(seq), src.streamBody(seq)]);
    // Covered by a local snapshot, or purged from the stream: nothing to compare; taken as agreed.
    if (!mine || !body) return seq;
    if (encodeBatch(mine).equals(encodeBatch(batchOfMessage(body)))) return seq;
  }
  return floor;
}

/**
 * Moves the data files (snapshots, log segments, search indexes) of `dir`
 * into `replaced-<time>/`, keeping the node's secrets, id and keys. Returns
 * the folder's name.
 */
export async function setAside(dir: string, now: number): Promise<string> {
  const folder = `replaced-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  await mkdir(path.join(dir, folder), { mode: 0o700 });
  for (const name of await readdir(dir)) {
    if (isSnapshotName(name) || isSegmentName(name) || name.startsWith('search-'))
      await rename(path.join(dir, name), path.join(dir, folder, name));
  }
  return folder;
}
