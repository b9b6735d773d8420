/**
 * The options of a cluster node (docs/cluster.md): rows of the start
 * command's table (start-options.ts), read by config.ts `clusterOf`.
 */
import type { OptionSpec } from './option-spec.js';

const TEXT = { kind: 'text' } as const;

export const CLUSTER_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'nats',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_NATS',
    placeholder: 'URLS',
    defaultText: 'none',
    help:
      'NATS servers with JetStream, `nats://host:4222,...`: with `--cluster`, this node is one of a cluster ' +
      'whose log is a JetStream stream (see docs/cluster.md)',
  },
  {
    name: 'cluster',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_CLUSTER',
    placeholder: 'NAME',
    defaultText: 'none',
    help: "the cluster's name, the same on every node (`[A-Za-z0-9_-]`; names the stream `EDDYDB_<NAME>`)",
  },
  {
    name: 'advertise-url',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_ADVERTISE_URL',
    placeholder: 'URL',
    defaultText: '`http://<host>:<port>`',
    help: "the URL other nodes and clients reach this node at; writes sent to a replica are redirected (307) to the primary's",
  },
  {
    name: 'lease-ttl',
    isFlag: true,
    value: { kind: 'int', min: 200, max: 600_000 },
    env: 'EDDYDB_LEASE_TTL',
    placeholder: 'MS',
    defaultText: '`10000`',
    help: "how long the primary's lease lasts unrenewed, in ms: a replica takes over about this long after the primary stops",
  },
  {
    name: 'stream-max-bytes',
    isFlag: true,
    value: { kind: 'int', min: 1, max: Number.MAX_SAFE_INTEGER },
    env: 'EDDYDB_STREAM_MAX_BYTES',
    placeholder: 'BYTES',
    defaultText: '`1073741824`',
    help: "past this size, the cluster's log drops the messages its stored snapshot covers",
  },
  {
    name: 'stream-max-age',
    isFlag: true,
    value: { kind: 'int', min: 1, max: 3650 * 86_400 },
    env: 'EDDYDB_STREAM_MAX_AGE',
    placeholder: 'SECS',
    defaultText: '`86400`',
    help: "past this age (of its first message), the cluster's log drops the messages its stored snapshot covers",
  },
];
