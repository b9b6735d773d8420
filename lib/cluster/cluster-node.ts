/**
 * One EddyDB node of a cluster: its role and the moves between roles.
 *
 * - replica: the follower applies the stream; writes are refused (307 to the
 *   primary, or 503 while no primary is known); every `pollEveryMs` it reads
 *   the lease, and when nobody holds it, it catches up with the whole stream,
 *   takes the lease, checks that nothing was appended meanwhile, and becomes
 *   primary, appending after the stream's last message.
 * - primary: renews the lease every `renewEveryMs`; steps down (to replica)
 *   when a renewal finds the lease taken, when its lease lapses unrenewed
 *   (cut off from NATS), or when the stream shows another node appended.
 *   After a `replicated` group failed, appends stay refused (503) until the
 *   stream's end is its own seq again; if the stream holds more (a lost
 *   acknowledgement), it steps down and reads it like any replica.
 * - fenced: a primary deposed holding batches the cluster never got (the
 *   asynchronous modes); it serves reads of what it has and takes no write
 *   until restarted, when rejoin.ts drops those batches.
 */
import path from 'node:path';
import { NotPrimary, Timeout, Unavailable } from '../errors.js';
import type { CommitLog } from '../engine/index.js';
import { ClusterLog } from './cluster-log.js';
import { Follower } from './follower.js';
import { Lease, LeaseClock, type LeaseHolder } from './lease.js';
import { clusterNames } from './names.js';
import { NatsLink } from './nats-link.js';
import { Publisher } from './publisher.js';
import { planRejoin, setAside } from './rejoin.js';
import { SnapshotStore } from './snapshot-store.js';
import type { ClusterDatabase, ClusterOptions, ClusterStatus, ClusterLogger, ClusterRole } from './cluster-options.js';

/** How long a starting node waits for NATS and its JetStream (servers starting at the same time). */
const CONNECT_WAIT_MS = 30_000;

/** What the server does when this node's role changes (start or stop the work only a primary does). */
export interface RoleHooks {
  onPrimary(): Promise<void> | void;
  onReplica(): Promise<void> | void;
}

export class ClusterNode {
  private role: ClusterRole = 'replica';
  private primary: LeaseHolder | undefined;
  private db: ClusterDatabase | undefined;
  private log: ClusterLog | undefined;
  private follower: Follower | undefined;
  private readonly publisher: Publisher;
  private lease!: Lease;
  private readonly snapshots: SnapshotStore;
  private node = '';
  private stopped = false;
  private ticking: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRenew = 0;
  private readonly seqWaiters = new Set<{ seq: number; done: () => void }>();
  private hooks: RoleHooks | undefined;

  private constructor(
    private readonly link: NatsLink,
    private readonly opts: ClusterOptions,
    private readonly report: ClusterLogger,
  ) {
    this.publisher = new Publisher(link.js);
    this.publisher.onDeposed = (err) => void this.stepDown(err.message);
    this.publisher.onAbandoned = (err, seqs) => void this.stepDown(err.message, seqs);
    this.snapshots = new SnapshotStore(link, opts.streamBounds);
  }

  /** Connects to NATS (making the stream, lease bucket and object store when missing). */
  static async connect(opts: ClusterOptions, report: ClusterLogger): Promise<ClusterNode> {
    const names = clusterNames(opts.name);
    const link = await NatsLink.openWhenReady(
      { servers: opts.servers, names, leaseTtlMs: opts.leaseTtlMs },
      CONNECT_WAIT_MS,
      (msg) => report('warn', msg),
    );
    report('info', `cluster ${opts.name}: connected to NATS (stream ${link.names.stream}, ${link.replicas} replicas)`);
    return new ClusterNode(link, opts, report);
  }

  /** The commit log the database appends to (DatabaseOptions.commitLog). */
  commitLog(local: CommitLog): CommitLog {
    const timeout = Math.max(500, Math.floor(this.opts.leaseTtlMs / 2));
    this.log = new ClusterLog(local, this.publisher, this.opts.name, () => this.node, Date.now, timeout);
    this.log.onBroken = (err) => this.report('warn', `cluster: a replicated write failed (${err.message})`);
    return this.log;
  }

  /**
   * Opens the database with `open` and checks it against the cluster's log;
   * when it does not follow it, sets the data files aside, loads the cluster's
   * snapshot and opens again (rejoin.ts). Throws (closing it) when the node may not join.
   */
  async openDatabase<D extends ClusterDatabase>(open: () => Promise<D>): Promise<D> {
    const db = await open();
    const dir = db.dataDir;
    if (!dir) {
      await db.close();
      throw new Error('a cluster node needs a data directory: drop --memory');
    }
    const plan = await planRejoin({
      localSeq: db.state.seq,
      localBatch: async (seq) => (await db.readLog(seq - 1, 1)).batches.find((b) => b.seq === seq),
      stream: await this.link.streamBounds(),
      streamBody: (seq) => this.link.messageBody(seq),
    });
    if (plan.kind === 'follow') return db;
    await db.close();
    if (plan.kind === 'refuse') throw new Error(`cannot join cluster ${this.opts.name}: ${plan.reason}`);
    const folder = await setAside(dir, Date.now());
    const seq = await this.snapshots.download(dir);
    this.report(
      'warn',
      `rejoining cluster ${this.opts.name}: ${plan.reason}; the previous data files are in ${path.join(dir, folder)}/; ` +
        (seq === undefined ? 'starting from nothing' : `starting from the cluster's snapshot at seq ${seq}`),
    );
    return open();
  }

  /**
   * Takes the opened database: refuses client writes from now on and follows
   * the stream as a replica. The role loop starts with `run`.
   */
  attach(db: ClusterDatabase): void {
    this.db = db;
    this.node = this.publisher.node = db.replication.nodeId;
    db.queue.refuseWrites = () => this.refusal();
    this.follower = new Follower(this.link.js, this.link.names.stream, db.queue, db.state, (level, msg, cause) =>
      this.report(level, msg, cause),
    );
    this.follower.start();
    db.onCommit(() => this.wakeSeqWaiters());
    db.onSnapshot((written) => void this.uploadSnapshot(db, written));
  }

  /**
   * Starts the role loop (lease, promotion, renewal), once clients can reach
   * this node at `advertiseUrl` (the configured one, or the bound port's).
   */
  run(hooks: RoleHooks, advertiseUrl = this.opts.advertiseUrl): void {
    this.hooks = hooks;
    this.advertiseUrl = advertiseUrl;
    const clock = new LeaseClock(this.opts.leaseTtlMs, this.opts.now ?? Date.now);
    this.lease = new Lease(this.link.lease, clock, { node: this.node, url: advertiseUrl });
    this.schedule(0);
  }
  private advertiseUrl = '';

  /** What health shows of the cluster. */
  status(): ClusterStatus {
    const applied = this.db?.state.seq ?? 0;
    const last = this.role === 'primary' ? applied : Math.max(applied, this.follower?.streamLast ?? 0);
    return {
      name: this.opts.name,
      role: this.role,
      node_id: this.node,
      primary_url: this.primary?.url ?? null,
      applied_seq: applied,
      lag: last - applied,
      lease_ttl_ms: this.opts.leaseTtlMs,
      stream: this.link.names.stream,
      stream_replicas: this.link.replicas,
      unpublished: this.role === 'primary' ? this.publisher.backlog : 0,
    };
  }

  /** The key every node of the cluster signs tokens with. */
  get jwtKey(): Buffer {
    return this.link.jwtKey;
  }

  get appliedSeq(): number {
    return this.db?.state.seq ?? 0;
  }

  get isPrimary(): boolean {
    return this.role === 'primary';
  }

  /** Throws what a write to this node gets when it is not the primary (the procedures' gate). */
  admitWrite(): void {
    if (this.role !== 'primary') throw this.refusal();
  }

  /** Resolves once this node has applied `seq`; Timeout after `timeoutMs` (read-your-writes). */
  waitForSeq(seq: number, timeoutMs: number): Promise<void> {
    const state = this.db!.state;
    if (state.seq >= seq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        seq,
        done: () => {
          clearTimeout(timer);
          this.seqWaiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.seqWaiters.delete(waiter);
        reject(
          new Timeout(
            `this node has applied seq ${state.seq} of the cluster's log; seq ${seq} did not arrive within ` +
              `${timeoutMs} ms (read from the primary${this.primary ? ` at ${this.primary.url}` : ''}, or retry)`,
          ),
        );
      }, timeoutMs);
      this.seqWaiters.add(waiter);
    });
  }

  private wakeSeqWaiters(): void {
    if (this.seqWaiters.size === 0) return;
    const seq = this.db!.state.seq;
    for (const waiter of [...this.seqWaiters]) if (waiter.seq <= seq) waiter.done();
  }

  private refusal(): Error {
    if (this.role === 'fenced')
      return new Unavailable(
        "this node holds writes the cluster's log never got and takes no more; restart it to rejoin as a replica",
      );
    if (this.primary && this.primary.node !== this.node) return new NotPrimary(this.primary.url);
    return new Unavailable(
      `no primary of cluster ${this.opts.name} is known to this node right now (an election, or NATS out of ` +
        'reach); retry shortly',
    );
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        const clock = this.lease.clock;
        this.schedule(this.role === 'primary' ? Math.min(clock.renewEveryMs, clock.pollEveryMs) : clock.pollEveryMs);
      });
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      if (this.role === 'primary') await this.tickPrimary();
      else if (this.role === 'replica') await this.tickReplica();
    } catch (err) {
      if (this.role === 'primary' && !this.lease.clock.valid)
        await this.stepDown(`its lease lapsed unrenewed (${(err as Error).message}): cut off from NATS?`);
      else if (!this.stopped) this.report('debug', `cluster: ${(err as Error).message}`, err);
    }
  }

  private async tickPrimary(): Promise<void> {
    const clock = this.lease.clock;
    if (clock.now() - this.lastRenew >= clock.renewEveryMs) {
      this.lastRenew = clock.now();
      if (!(await withTimeout(this.lease.renew(), clock.remainingMs || 1))) {
        await this.stepDown('another node holds the lease');
        return;
      }
    }
    if (this.log!.isBroken) await this.repairAppends();
  }

  private async tickReplica(): Promise<void> {
    this.primary = await this.lease.holder();
    if (this.primary) return;
    const { last } = await this.link.streamBounds();
    const db = this.db!;
    // Everything in the stream first: an acknowledged write is in it, and the new primary must hold it.
    if (!(await this.caughtUp(last))) return;
    if (!(await this.lease.acquire())) return;
    await this.follower!.stop();
    const after = await this.link.streamBounds();
    if (after.last !== db.state.seq) {
      // A deposed primary appended meanwhile: read it, then try again.
      await this.lease.release();
      this.follower!.start();
      return;
    }
    this.publisher.start(this.lease.term, db.state.seq, await this.link.messageId(db.state.seq));
    this.log!.resume();
    this.log!.publishing = true;
    this.role = 'primary';
    this.primary = { node: this.node, url: this.advertiseUrl };
    this.lastRenew = this.lease.clock.now();
    db.queue.refuseWrites = undefined;
    this.report(
      'info',
      `cluster ${this.opts.name}: this node is the primary (term ${this.lease.term}, seq ${db.state.seq})`,
    );
    await this.hooks?.onPrimary();
  }

  /** Waits (bounded by a lease) until the follower has applied `last`. */
  private async caughtUp(last: number): Promise<boolean> {
    if (this.db!.state.seq >= last) return true;
    await this.waitForSeq(last, this.opts.leaseTtlMs).catch(() => undefined);
    return this.db!.state.seq >= last;
  }

  /** After a failed `replicated` group: appends resume once the stream ends at this node's seq again. */
  private async repairAppends(): Promise<void> {
    const db = this.db!;
    await db.queue.idle();
    const { last } = await this.link.streamBounds();
    if (last > db.state.seq) {
      await this.stepDown(`the cluster's log holds batches past seq ${db.state.seq} this node did not apply`);
      return;
    }
    this.publisher.start(this.lease.term, db.state.seq, await this.link.messageId(db.state.seq));
    this.log!.resume();
    this.report('info', `cluster: appending to the cluster's log again from seq ${db.state.seq + 1}`);
  }

  /** Leaves the primary role: refuses writes, and reads the stream again (or stays fenced). */
  private async stepDown(why: string, abandoned: readonly number[] = []): Promise<void> {
    if (this.role !== 'primary') return;
    const db = this.db!;
    this.role = 'replica';
    this.primary = undefined;
    this.log!.publishing = false;
    db.queue.refuseWrites = () => this.refusal();
    const unpublished = [...abandoned, ...this.publisher.stop(this.refusal())];
    this.lease.dropped();
    this.report('warn', `cluster ${this.opts.name}: this node is no longer the primary: ${why}`);
    await this.hooks?.onReplica();
    await db.queue.idle();
    const last = await this.link.streamBounds().then(
      (bounds) => bounds.last,
      () => undefined,
    );
    // Committed here and not (known to be) in the stream: this node's state is not a prefix of the cluster's log.
    if ((unpublished.length > 0 && db.state.seq >= unpublished[0]!) || (last !== undefined && db.state.seq > last)) {
      this.role = 'fenced';
      this.report(
        'error',
        `cluster ${this.opts.name}: batches ${unpublished[0] ?? (last ?? 0) + 1}..${db.state.seq} were committed here but never reached ` +
          "the cluster's log; this node takes no writes until restarted, when they are dropped",
      );
      return;
    }
    this.follower!.start();
  }

  private async uploadSnapshot(db: ClusterDatabase, written: { name: string; seq: number }): Promise<void> {
    if (this.role !== 'primary' || this.stopped || !db.dataDir) return;
    try {
      if (await this.snapshots.upload(path.join(db.dataDir, written.name), written.seq)) {
        const purged = await this.snapshots.trim();
        this.report(
          'info',
          `cluster: stored snapshot seq ${written.seq} in NATS` + (purged ? `; ${purged} older messages purged` : ''),
        );
      }
    } catch (err) {
      this.report('warn', `cluster: storing snapshot seq ${written.seq} in NATS failed`, err);
    }
  }

  /** Stops the role loop and the follower, gives the lease up (a replica takes over at once) and disconnects. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    // A replica's follower stops feeding the writer; the primary's groups under way reach the writer's end.
    await this.follower?.stop();
    await this.db?.queue.idle();
    // Batches committed in the asynchronous modes still on their way to the stream: a bounded wait.
    for (let waited = 0; this.publisher.backlog > 0 && waited < 5000; waited += 50) await sleep(50);
    if (this.role === 'primary') await this.lease.release();
    this.publisher.stop(new Unavailable('the server is shutting down'));
    await this.link.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`NATS did not answer within ${ms} ms`)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
