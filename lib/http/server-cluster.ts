/**
 * The composition root's part for a cluster node (`--cluster`, lib/cluster):
 * connects to NATS before the data is opened, opens the database through
 * the cluster (its log publishes; a node that does not follow the cluster's
 * log starts again from its snapshot), and, as the node's role changes,
 * starts or stops what only a primary does: the admin key's bootstrap, the
 * background sweeps' writes (replicas skip them in the engine) and the
 * stored schedules.
 */
import { ClusterNode, type ClusterDatabase, type ClusterOptions } from '../cluster/index.js';
import type { CommitLog } from '../engine/index.js';
import type { ServerLog } from './log/server-log.js';
import type { TokenEngine } from './auth/tokens.js';

/** What a server with a cluster does when the node becomes primary or replica. */
export interface ClusterRoleWork {
  becamePrimary(): Promise<void>;
  becameReplica(): Promise<void>;
}

/**
 * Opens the database with `open`: through the cluster when `options` is
 * given (connecting first), else as it is. Closes the connection when the
 * database cannot be opened.
 */
export async function openClustered<D extends ClusterDatabase>(
  options: ClusterOptions | undefined,
  log: ServerLog,
  open: (commitLog?: (local: CommitLog) => CommitLog) => Promise<D>,
): Promise<{ db: D; cluster: ClusterNode | undefined }> {
  if (!options) return { db: await open(), cluster: undefined };
  const cluster = await ClusterNode.connect(options, (level, msg, cause) => log(level, msg, cause));
  try {
    const db = await cluster.openDatabase(() => open((local) => cluster.commitLog(local)));
    return { db, cluster };
  } catch (err) {
    await cluster.close();
    throw err;
  }
}

/** Starts the node's role loop once it listens at `url` (or its advertised URL); `work` follows its role. */
export function runCluster(cluster: ClusterNode, work: ClusterRoleWork, url: string, advertised: string): void {
  // A node told to listen on port 0 advertises the port it got.
  const advertise = /:0$/.test(advertised) ? url : advertised;
  cluster.run({ onPrimary: () => work.becamePrimary(), onReplica: () => work.becameReplica() }, advertise);
}

/**
 * What the token service reads of a cluster node's database: the same, but
 * tokens are signed with the cluster's shared key, so a token is good on
 * every node.
 */
export function clusterTokens(db: TokenEngine, cluster: ClusterNode | undefined): TokenEngine {
  if (!cluster) return db;
  return {
    keys: db.keys,
    secrets: { jwtKey: cluster.jwtKey },
    now: () => db.now(),
    settings: () => db.settings(),
  };
}

/** Refuses a configuration a cluster node cannot run with (before anything is opened). */
export function checkClusterConfig(config: { memory?: boolean; ripplePeers?: readonly unknown[] }): void {
  if (config.memory)
    throw new Error("a cluster node needs a data directory (the cluster's log is replayed into it): drop memory");
  if ((config.ripplePeers?.length ?? 0) > 0)
    throw new Error(
      'ripple peers and a cluster do not mix: other systems follow a cluster through its change feed (docs/cluster.md)',
    );
}
