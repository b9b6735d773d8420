/**
 * The names a cluster uses in NATS, all made from its name (`--cluster`):
 *
 * - the stream `EDDYDB_<NAME>` (the replicated log and the public change feed), subjects `eddydb.<NAME>.>`;
 * - the key-value bucket `EDDYDB_<NAME>_LEASE` (one key, `primary`; the bucket's TTL is the lease's);
 * - the object store `EDDYDB_<NAME>_SNAPSHOTS` (the latest snapshot, the floor of the stream);
 * - the key-value bucket `EDDYDB_<NAME>_META` (the key tokens are signed with, shared by every node).
 *
 * A batch's subject says what it changed (docs/cluster.md, The change feed):
 * `eddydb.<NAME>.c.<collection>` when its changes are all in one collection
 * (a `.` in the name becomes `~`, which names never hold), `eddydb.<NAME>.multi`
 * when they span several, `eddydb.<NAME>.meta` when it changed no record
 * (key-value entries, API keys, settings).
 */
import { InvalidInput } from '../errors.js';

const CLUSTER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ClusterNames {
  readonly cluster: string;
  readonly stream: string;
  /** Every subject of the stream: `eddydb.<NAME>.>`. */
  readonly subjects: string;
  readonly leaseBucket: string;
  readonly snapshotBucket: string;
  readonly metaBucket: string;
}

/** The NATS names of cluster `name`; throws InvalidInput on a name NATS cannot carry. */
export function clusterNames(name: string): ClusterNames {
  if (!CLUSTER_NAME.test(name))
    throw new InvalidInput(`cluster name '${name}' must be 1-64 letters, digits, '_' or '-' (it names NATS streams)`);
  return {
    cluster: name,
    stream: `EDDYDB_${name}`,
    subjects: `eddydb.${name}.>`,
    leaseBucket: `EDDYDB_${name}_LEASE`,
    snapshotBucket: `EDDYDB_${name}_SNAPSHOTS`,
    metaBucket: `EDDYDB_${name}_META`,
  };
}

/** The subject of a batch whose changes touch `collections` (record changes and drops). */
export function batchSubject(cluster: string, collections: ReadonlySet<string>): string {
  if (collections.size === 0) return `eddydb.${cluster}.meta`;
  if (collections.size > 1) return `eddydb.${cluster}.multi`;
  const [only] = collections;
  return `eddydb.${cluster}.c.${only!.replaceAll('.', '~')}`;
}
