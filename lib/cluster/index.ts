/**
 * A cluster of EddyDB nodes over NATS JetStream (docs/cluster.md): the
 * stream is the replicated log, a key-value lease picks the primary, an
 * object store keeps the snapshot new replicas start from.
 */
export { ClusterNode, type RoleHooks } from './cluster-node.js';
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_STREAM_BOUNDS,
  type ClusterDatabase,
  type ClusterLogger,
  type ClusterOptions,
  type ClusterRole,
  type ClusterStatus,
} from './cluster-options.js';
export { clusterNames, batchSubject, type ClusterNames } from './names.js';
export { feedMessage, batchOfMessage, type FeedChange, type FeedOperation } from './feed-message.js';
export { LeaseClock } from './lease.js';
export { planRejoin, type RejoinPlan, type RejoinSources } from './rejoin.js';
