/**
 * The connection to NATS and what a cluster keeps there: the stream (the
 * replicated log), the lease bucket and the snapshot object store, each made
 * when missing. With three or more NATS servers (a NATS cluster) they are
 * replicated three times, so a quorum of two stores each write; a single
 * server keeps one copy (replicas: 1).
 *
 * The client reconnects for ever, only to the URLs given (`--nats`): the
 * addresses servers gossip may not be reachable from here.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { ClusterNames } from './names.js';
import { isWrongLastSequence } from './lease.js';
import { randomBytes } from 'node:crypto';

export interface NatsLinkOptions {
  readonly servers: readonly string[];
  readonly names: ClusterNames;
  readonly leaseTtlMs: number;
}

export class NatsLink {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly lease: KV,
    readonly snapshots: ObjectStore,
    /** What every node shares (the token signing key). */
    readonly meta: KV,
    readonly names: ClusterNames,
    /** Copies of the stream and buckets kept by NATS (1, or 3 on a NATS cluster). */
    readonly replicas: number,
    /**
     * The key every node of the cluster signs tokens with, made by the first node that opens the link: a token from
     * one node is good on all of them (a client sent to the primary by a 307 keeps its token).
     */
    readonly jwtKey: Buffer,
  ) {}

  /**
   * open(), tried again for up to `waitMs` while NATS is not reachable or its JetStream not ready yet (servers
   * starting together with the node). Throws naming the URLs once the time is up.
   */
  static async openWhenReady(opts: NatsLinkOptions, waitMs: number, log: (msg: string) => void): Promise<NatsLink> {
    const deadline = Date.now() + waitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await NatsLink.open(opts);
      } catch (err) {
        const why = (err as Error).message;
        if (Date.now() >= deadline)
          throw new Error(`cannot use NATS JetStream at ${opts.servers.join(', ')}: ${why}`, { cause: err });
        if (attempt === 1) log(`cluster: NATS not ready yet (${why}); trying again for ${waitMs / 1000} s`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Connects and makes the stream, the lease bucket and the object store when missing. */
  static async open(opts: NatsLinkOptions): Promise<NatsLink> {
    const nc = await connect({
      servers: [...opts.servers],
      name: `eddydb ${opts.names.cluster}`,
      ignoreClusterUpdates: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      pingInterval: 5000,
      maxPingOut: 2,
    });
    try {
      const jsm = await jetstreamManager(nc);
      const replicas = await ensureStream(jsm, opts.names);
      const lease = await new Kvm(nc).create(opts.names.leaseBucket, {
        ttl: opts.leaseTtlMs,
        history: 1,
        replicas,
      });
      const snapshots = await new Objm(nc).create(opts.names.snapshotBucket, { replicas });
      const meta = await new Kvm(nc).create(opts.names.metaBucket, { history: 1, replicas });
      const jwtKey = await sharedJwtKey(meta, opts.names);
      return new NatsLink(nc, jetstream(nc), jsm, lease, snapshots, meta, opts.names, replicas, jwtKey);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  /** The stream's first and last sequences (first is last + 1 when it holds nothing). */
  async streamBounds(): Promise<{ first: number; last: number }> {
    const info = await this.jsm.streams.info(this.names.stream);
    return { first: info.state.first_seq, last: info.state.last_seq };
  }

  /** The message id of the stream's message `seq` (what the next append must name), or undefined. */
  async messageId(seq: number): Promise<string | undefined> {
    if (seq === 0) return undefined;
    const message = await this.jsm.streams.getMessage(this.names.stream, { seq });
    return message?.header.get('Nats-Msg-Id') || undefined;
  }

  /** The body of the stream's message `seq`, or undefined when it is gone (purged below the floor). */
  async messageBody(seq: number): Promise<Uint8Array | undefined> {
    try {
      const message = await this.jsm.streams.getMessage(this.names.stream, { seq });
      return message?.data;
    } catch (err) {
      if (/no message found/i.test((err as Error).message)) return undefined;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}

/**
 * The stream, made when missing: three replicas on a NATS cluster, else one.
 * An existing stream is used as it is. Returns its replica count.
 */
async function ensureStream(jsm: JetStreamManager, names: ClusterNames): Promise<number> {
  try {
    const info = await jsm.streams.info(names.stream);
    return info.config.num_replicas;
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
  }
  const config = { name: names.stream, subjects: [names.subjects], allow_direct: true };
  try {
    await jsm.streams.add({ ...config, num_replicas: 3 });
    return 3;
  } catch (err) {
    // A single server, or a NATS cluster of fewer than three: one copy.
    if (!/replicas|insufficient resources|clustered/i.test((err as Error).message)) throw err;
  }
  await jsm.streams.add({ ...config, num_replicas: 1 });
  return 1;
}

/** The cluster's token signing key: the stored one, or a new one stored by this node (the first to ask). */
async function sharedJwtKey(meta: KV, names: ClusterNames): Promise<Buffer> {
  const stored = await meta.get('jwt_key');
  if (stored?.operation === 'PUT') return Buffer.from(stored.string(), 'base64');
  const key = randomBytes(32);
  try {
    await meta.create('jwt_key', key.toString('base64'));
    return key;
  } catch (err) {
    if (!isWrongLastSequence(err)) throw err;
  }
  const entry = await meta.get('jwt_key');
  if (!entry) throw new Error(`the cluster's token key vanished from ${names.metaBucket}`);
  return Buffer.from(entry.string(), 'base64');
}
