/**
 * HNSW graphs kept in a worker thread (hnsw-worker.ts), so that their
 * inserts (about 0.45 ms each at 384 dimensions) and searches run beside
 * the request thread instead of on it. One `HnswThread` serves every graph
 * of a database; each graph is a `RemoteHnsw` handle.
 *
 * Changes travel in `HnswBatch`es (ids and one Float32Array of vectors,
 * transferred, not copied); a search sees every batch posted before it,
 * and waits for at most one chunk of the worker's inserts (hnsw-worker.ts).
 * A batch is answered once it is in the graph; the caller keeps the batches
 * small (RemoteHnsw.insertUs says what an insert costs) and few in flight,
 * which bounds the vectors a search scores exactly in the worker. The worker
 * is unref'd while nothing is asked of it, and ref'd while a request is
 * out, so an awaited request keeps the process alive. If the worker dies,
 * every request fails and `onFailure` is told once.
 */
import type { Worker } from 'node:worker_threads';
import type { Metric } from './distance.js';
import type { HnswOptions, HnswSavedState } from './hnsw.js';
import {
  HNSW_WORKER,
  type AppliedBatch,
  type HnswCalibrated,
  type HnswCloseMessage,
  type HnswReply,
  type HnswRequest,
} from './hnsw-worker.js';
import { startModuleWorker } from './module-worker.js';
import type { VectorHit } from './vector-index.js';

const WORKER_ENTRY = new URL(`./hnsw-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** How long a closing worker may take to end itself (a save or load in flight finishes first) before it is terminated. */
const CLOSE_GRACE_MS = 30_000;

/** An insert's cost assumed until the worker has measured one (384 dimensions, m 16). */
const FIRST_INSERT_US = 500;

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class HnswThread {
  private worker: Worker | undefined;
  private nextSeq = 0;
  private nextKey = 0;
  private readonly waiting = new Map<number, Waiting>();
  /** Graphs by key, told when their ef is calibrated. */
  private readonly graphs = new Map<string, WeakRef<RemoteHnsw>>();
  private failure: Error | undefined;
  /** Told once when the worker fails or exits unasked; every request fails from then on. */
  onFailure: ((err: Error) => void) | undefined;

  /** A new empty graph. Throws InvalidInput on bad options (checked here, before the worker sees them). */
  create(options: HnswOptions): RemoteHnsw {
    const remote = this.known(new RemoteHnsw(this, `g${this.nextKey++}`, options.dimensions, options.metric));
    void this.request({ op: 'create', key: remote.key, options }).catch(() => undefined);
    return remote;
  }

  /** A graph read from `file` (written by RemoteHnsw.save with `state`); hnswlib reads on the thread pool. */
  async load(file: string, state: HnswSavedState, options: Pick<HnswOptions, 'efSearch'> = {}): Promise<RemoteHnsw> {
    const remote = this.known(new RemoteHnsw(this, `g${this.nextKey++}`, state.dimensions, state.metric));
    remote.size = (await this.request({ op: 'load', key: remote.key, file, state, options })) as number;
    return remote;
  }

  /**
   * Stops the worker; requests still out fail. Idempotent. The worker is
   * asked to end itself (HnswCloseMessage) and terminated only if it has not
   * within CLOSE_GRACE_MS: terminating it in the middle of a native call
   * that makes a JavaScript value (a calibration reading points, a search)
   * aborts the whole process (node-addon-api cannot throw into a thread
   * being terminated), while the message is handled between its tasks.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    this.failure ??= new Error('the HNSW worker is closed');
    this.worker = undefined;
    this.failAll(this.failure);
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ close: true } satisfies HnswCloseMessage);
    const timer = setTimeout(() => void worker.terminate().catch(() => undefined), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Posts `request` (transferring `transfer`) and resolves with the worker's answer. */
  request(request: HnswRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const worker = (this.worker ??= this.spawn());
    const seq = this.nextSeq++;
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      worker.postMessage({ seq, request }, transfer);
    });
  }

  private known(remote: RemoteHnsw): RemoteHnsw {
    this.graphs.set(remote.key, new WeakRef(remote));
    return remote;
  }

  /** Forgets a dropped graph. */
  forget(key: string): void {
    this.graphs.delete(key);
  }

  private spawn(): Worker {
    const worker = startModuleWorker(WORKER_ENTRY, HNSW_WORKER);
    worker.on('message', (message: HnswReply | HnswCalibrated) => {
      if ('calibrated' in message) {
        const remote = this.graphs.get(message.calibrated)?.deref();
        if (remote) {
          remote.efSearch = message.ef;
          remote.scanning = message.scanning;
        }
      } else this.settle(message);
    });
    worker.on('error', (err) => this.fail(new Error(`the HNSW worker failed: ${err.message}`, { cause: err })));
    worker.on('exit', (code) => this.fail(new Error(`the HNSW worker exited (code ${code})`)));
    worker.unref();
    return worker;
  }

  private settle(reply: HnswReply): void {
    const waiter = this.waiting.get(reply.seq);
    if (!waiter) return;
    this.waiting.delete(reply.seq);
    if (this.waiting.size === 0) this.worker?.unref();
    if ('error' in reply) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply.value);
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.worker = undefined;
    this.failAll(err);
    this.onFailure?.(err);
  }

  private failAll(err: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
  }
}

/** One graph in the worker. `size` and `inFlight` are the main thread's view: as of the last answer. */
export class RemoteHnsw {
  /** Live vectors in the graph as of the last batch answered (a batch is answered once it is in the graph). */
  size = 0;
  /** Batches posted and not answered yet. */
  inFlight = 0;
  /** The query-time ef calibrated on the graph's data (for k = 10), once measured. */
  efSearch: number | undefined;
  /** True when calibration found a quantized scan answers the graph's searches faster (HnswIndex). */
  scanning = false;
  /** Mean cost of one insert in the worker, smoothed over the batches that inserted. */
  insertUs = FIRST_INSERT_US;

  constructor(
    private readonly thread: HnswThread,
    readonly key: string,
    readonly dimensions: number,
    readonly metric: Metric,
  ) {}

  /** Applies `batch` in the worker (its vectors are transferred: the batch is emptied). */
  async apply(batch: HnswBatch): Promise<void> {
    const message = batch.take();
    this.inFlight++;
    try {
      const applied = (await this.thread.request({ op: 'apply', key: this.key, ...message }, [
        message.vectors.buffer as ArrayBuffer,
      ])) as AppliedBatch;
      this.size = applied.size;
      // Smoothed: one batch slowed by a busy machine must not shrink the next ones to a few vectors.
      if (applied.insertUs > 0) this.insertUs = 0.8 * this.insertUs + 0.2 * applied.insertUs;
    } finally {
      this.inFlight--;
    }
  }

  /**
   * The up to `k` nearest vectors (VectorIndex.search, best first), among `allowed` ids when given; sees every batch
   * posted before it.
   */
  async search(query: readonly number[], k: number, allowed?: string[]): Promise<VectorHit[]> {
    const ids = await this.thread.request({
      op: 'search',
      key: this.key,
      query: Float64Array.from(query),
      k,
      ...(allowed ? { allowed } : {}),
    });
    return ids as VectorHit[];
  }

  /**
   * Writes the graph to `file`, with every batch posted before (HnswIndex.save: batches posted meanwhile are held and
   * applied after).
   */
  save(file: string): Promise<HnswSavedState> {
    return this.thread.request({ op: 'save', key: this.key, file }) as Promise<HnswSavedState>;
  }

  /** Ids of the live vectors in the graph, once the batches posted before are applied. */
  ids(): Promise<string[]> {
    return this.thread.request({ op: 'ids', key: this.key }) as Promise<string[]>;
  }

  /** Frees the graph in the worker. */
  drop(): void {
    this.thread.forget(this.key);
    void this.thread.request({ op: 'drop', key: this.key }).catch(() => undefined);
  }
}

/** Changes gathered for one RemoteHnsw.apply: inserts (copied to float32) and removals, in order. */
export class HnswBatch {
  private ids: string[] = [];
  private rows: number[] = [];
  private vectors: Float32Array;
  private used = 0;

  constructor(private readonly dimensions: number) {
    this.vectors = new Float32Array(dimensions * 16);
  }

  get length(): number {
    return this.ids.length;
  }

  /** Inserts or replaces `id`. REQUIRES: `vector` has the graph's dimensions. */
  add(id: string, vector: readonly number[]): void {
    const dims = this.dimensions;
    if ((this.used + 1) * dims > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(vector, this.used * dims);
    this.ids.push(id);
    this.rows.push(this.used++);
  }

  remove(id: string): void {
    this.ids.push(id);
    this.rows.push(-1);
  }

  /** The batch as a message; the batch starts over empty. */
  take(): { ids: string[]; rows: Int32Array; vectors: Float32Array } {
    const message = {
      ids: this.ids,
      rows: Int32Array.from(this.rows),
      vectors: this.vectors.slice(0, this.used * this.dimensions),
    };
    this.ids = [];
    this.rows = [];
    this.used = 0;
    return message;
  }
}
