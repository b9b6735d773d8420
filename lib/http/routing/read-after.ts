/**
 * Read-your-writes on a cluster (docs/cluster.md): every answer of a cluster
 * node carries `X-EddyDB-Seq`, the seq this node has applied (after a write,
 * at least the write's own); a request carrying `X-EddyDB-Min-Seq: <seq>` is
 * answered only once the node has applied that seq, waiting at most
 * READ_AFTER_WAIT_MS (then 504, naming both seqs).
 */
import { InvalidInput } from '../../errors.js';
import type { ClusterService } from '../procedures/context.js';

export const SEQ_HEADER = 'X-EddyDB-Seq';
export const READ_AFTER_WAIT_MS = 5000;

/** undefined when `cluster` has applied the seq `text` names already; else the wait for it. */
export function readAfter(cluster: ClusterService, text: string): Promise<void> | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,15}$/.test(trimmed))
    throw new InvalidInput(`X-EddyDB-Min-Seq must be a seq (the X-EddyDB-Seq of an answer), not '${text}'`);
  const seq = Number(trimmed);
  if (cluster.appliedSeq >= seq) return undefined;
  return cluster.waitForSeq(seq, READ_AFTER_WAIT_MS);
}
