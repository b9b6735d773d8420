/**
 * The worker-thread side of hnsw-thread.ts: owns the HNSW graphs of one
 * database (an `HnswIndex` per key) and answers the main thread's requests
 * in the order they arrive, so a search sees every batch posted before it.
 * A save writes on the libuv thread pool and holds the changes that arrive
 * meanwhile (HnswIndex.save), applied after it HELD_CHUNK_MS at a time,
 * with requests answered between chunks; the next save of the graph waits
 * for it, and for what it held to be applied the same way. A load finishes
 * before later requests for the same key run. Once a graph has grown to twice the size it was last
 * calibrated at (and holds CALIBRATE_FROM vectors) and no batch has come
 * for CALIBRATE_IDLE_MS, its query-time ef is calibrated on its data
 * (HnswIndex.calibrate), in chunks between which requests are answered; a
 * calibration the batches overtook is tried again at the next pause.
 * Started only by HnswThread, with its `workerData`.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { HnswIndex, type HnswOptions, type HnswSavedState } from './hnsw.js';
import { ThreadPriority, WORKER_NICENESS } from './module-worker.js';
import type { VectorHit } from './vector-index.js';

/** Marks the workerData of an HNSW worker. */
export const HNSW_WORKER = 'eddydb-hnsw-worker';

/** A batch of changes: `ids[i]` takes row `rows[i]` of `vectors` (`dimensions` floats each), or is removed (-1). */
export interface HnswBatchMessage {
  ids: string[];
  rows: Int32Array;
  vectors: Float32Array;
}

export type HnswRequest =
  | { op: 'create'; key: string; options: HnswOptions }
  | { op: 'load'; key: string; file: string; state: HnswSavedState; options: Pick<HnswOptions, 'efSearch'> }
  | ({ op: 'apply'; key: string } & HnswBatchMessage)
  | { op: 'search'; key: string; query: Float64Array; k: number; allowed?: string[] }
  | { op: 'save'; key: string; file: string }
  | { op: 'ids'; key: string }
  | { op: 'drop'; key: string };

/** What `apply` answers: live vectors after the batch and the mean cost of one insert in it. */
export interface AppliedBatch {
  size: number;
  insertUs: number;
}

export type HnswReply = { seq: number; value: unknown } | { seq: number; error: string };

/**
 * Asks the worker to end: calibrations stop at their next pause, the port
 * closes, and the thread exits once a save or load in flight is done.
 */
export interface HnswCloseMessage {
  close: true;
}

/** Told unasked when a graph's ef has been calibrated. */
export interface HnswCalibrated {
  calibrated: string;
  ef: number;
}

/** Told unasked when the changes a graph held during a save are all applied: its live vectors then. */
export interface HnswDrained {
  drained: string;
  size: number;
}

const indexes = new Map<string, HnswIndex>();
/** Graphs smaller than this keep the default ef: a search of them costs little whatever the ef. */
const CALIBRATE_FROM = 1000;
const CALIBRATE_IDLE_MS = 200;
/**
 * Time spent applying held changes per turn after a save, what a search may wait for (at this thread's lowered
 * priority, several times as long on a busy core): half the work of one batch (background-builds.ts). A save of a
 * large graph takes seconds, and the batches posted meanwhile hold thousands of vectors.
 */
const HELD_CHUNK_MS = 4;
/** Graphs whose held changes are being applied (drainLater). */
const draining = new Set<string>();
/** Per graph: its size at the last calibration, and the calibration waiting or running. */
const calibrations = new Map<string, { size: number; timer?: NodeJS.Timeout; running?: boolean }>();
/** Saves asked for and not finished, per graph: a save waits for the one before. */
const saves = new Map<string, Promise<HnswSavedState>>();
/** Loads in progress: later requests for the key wait for them. */
const loading = new Map<string, Promise<unknown>>();
/**
 * This thread's priority, set by the work at hand: lowered while it applies batches, its own while it searches or
 * calibrates. On a core shared with the request thread, a build then takes the core only when the server waits (or
 * a tenth of it), and the exact scan that a search during the build makes of what the graph lacks is not slowed by
 * half; a search is answered at the process's priority, and does not wait for every busy thread of the machine. A
 * calibration is short, and searches wait for its chunks: lowered, it went on longer under searches, and their p50
 * after a restart rose from 0.97 to 1.47 ms (1.11 ms at its own priority).
 */
let priority: ThreadPriority | undefined;

function indexOf(key: string): HnswIndex {
  const index = indexes.get(key);
  if (!index) throw new Error(`no HNSW index '${key}' in the worker`);
  return index;
}

function apply(index: HnswIndex, batch: HnswBatchMessage): AppliedBatch {
  const dims = index.dimensions;
  const started = performance.now();
  let inserts = 0;
  for (let i = 0; i < batch.ids.length; i++) {
    const row = batch.rows[i]!;
    if (row < 0) index.remove(batch.ids[i]!);
    else {
      index.add(batch.ids[i]!, Array.from(batch.vectors.subarray(row * dims, (row + 1) * dims)));
      inserts++;
    }
  }
  // Held during a save, a batch costs no insert: no cost is reported, so the main thread keeps its batches sized.
  const insertUs = inserts > 0 && !index.saveInProgress ? ((performance.now() - started) * 1000) / inserts : 0;
  return { size: index.size(), insertUs };
}

function search(index: HnswIndex, request: Extract<HnswRequest, { op: 'search' }>): VectorHit[] {
  const allowed = request.allowed && new Set(request.allowed);
  return index.search(Array.from(request.query), request.k, allowed && ((id) => allowed.has(id)));
}

/** Runs a request that needs no waiting: in order with the batches and searches around it. */
function runNow(request: Exclude<HnswRequest, { op: 'load' | 'save' }>): unknown {
  switch (request.op) {
    case 'create':
      indexes.set(request.key, new HnswIndex(request.options));
      return undefined;
    case 'apply': {
      priority?.background();
      const index = indexOf(request.key);
      const applied = apply(index, request);
      calibrateLater(request.key, index);
      return applied;
    }
    case 'search':
      priority?.foreground();
      return search(indexOf(request.key), request);
    case 'ids': {
      // Every change posted before is in the graph first, the ones held after a save included (unless one runs).
      const index = indexOf(request.key);
      index.drainHeld(Infinity);
      return [...index.ids()];
    }
    case 'drop':
      indexes.delete(request.key);
      clearTimeout(calibrations.get(request.key)?.timer);
      calibrations.delete(request.key);
      return undefined;
    default:
      throw new Error(`unknown HNSW request ${String(request satisfies never as unknown)}`);
  }
}

/** Loads and saves (on the thread pool), and requests for a key still loading. */
async function runLater(request: HnswRequest): Promise<unknown> {
  await loading.get(request.key)?.catch(() => undefined);
  if (request.op === 'save') {
    const index = indexOf(request.key);
    const previous = saves.get(request.key);
    const saved = (async () => {
      await previous?.catch(() => undefined);
      // What an earlier save held goes into the graph first (the file holds every change made before this request),
      // a chunk at a time: applied at once, thousands of them kept every search waiting for seconds.
      if (!(await drainInChunks(request.key, index))) throw new Error(`HNSW index '${request.key}' was dropped`);
      try {
        return await index.save(request.file);
      } finally {
        drainLater(request.key, index);
      }
    })();
    saves.set(request.key, saved);
    try {
      return await saved;
    } finally {
      if (saves.get(request.key) === saved) saves.delete(request.key);
    }
  }
  if (request.op !== 'load') return runNow(request);
  const loaded = HnswIndex.load(request.file, request.state, request.options);
  loading.set(request.key, loaded);
  try {
    const index = await loaded;
    indexes.set(request.key, index);
    calibrateLater(request.key, index);
    return index.size();
  } finally {
    loading.delete(request.key);
  }
}

/**
 * Applies the changes `index` holds, HELD_CHUNK_MS per turn of this thread's loop with requests answered between, at
 * the build's priority. True once none is held; false if the graph was dropped or a save began meanwhile (which
 * drains again when it ends). Ends: batches meanwhile apply as many held changes as they bring (apply).
 */
async function drainInChunks(key: string, index: HnswIndex): Promise<boolean> {
  for (;;) {
    if (index.heldCount === 0) return indexes.get(key) === index;
    await new Promise((resolve) => setImmediate(resolve));
    if (indexes.get(key) !== index || index.saveInProgress) return false;
    priority?.background();
    index.drainHeld(Infinity, performance.now() + HELD_CHUNK_MS);
  }
}

/** Applies the changes `index` held during a save (drainInChunks), tells the main thread, then calibrates. */
function drainLater(key: string, index: HnswIndex): void {
  if (draining.has(key)) return;
  draining.add(key);
  void drainInChunks(key, index).then((drained) => {
    draining.delete(key);
    if (!drained) return;
    parentPort?.postMessage({ drained: key, size: index.size() } satisfies HnswDrained);
    calibrateLater(key, index);
  });
}

/** Calibrates `index`'s ef once it has grown enough and the batches have paused (see the header). */
function calibrateLater(key: string, index: HnswIndex): void {
  if (index.efSearch !== undefined) return;
  let calibration = calibrations.get(key);
  if (!calibration) calibrations.set(key, (calibration = { size: 0 }));
  if (calibration.running || index.size() < Math.max(CALIBRATE_FROM, 2 * calibration.size)) return;
  clearTimeout(calibration.timer);
  const current = calibration;
  current.timer = setTimeout(() => {
    current.running = true;
    priority?.foreground();
    const size = index.size();
    const pause = () =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          if (indexes.get(key) !== index) return reject(new Error('dropped'));
          priority?.foreground();
          resolve();
        }),
      );
    index.calibrate(pause).then(
      (calibrated) => {
        current.running = false;
        // The graph changed meanwhile: try again once the batches pause.
        if (!calibrated) return calibrateLater(key, index);
        current.size = size;
        parentPort?.postMessage({ calibrated: key, ef: calibrated.ef } satisfies HnswCalibrated);
      },
      () => {
        current.running = false;
      },
    );
  }, CALIBRATE_IDLE_MS);
  current.timer.unref();
}

function answer(port: NonNullable<typeof parentPort>, seq: number, request: HnswRequest): void {
  const fail = (err: unknown) =>
    port.postMessage({ seq, error: err instanceof Error ? err.message : String(err) } satisfies HnswReply);
  if (request.op === 'load' || request.op === 'save' || loading.has(request.key)) {
    runLater(request).then((value) => port.postMessage({ seq, value } satisfies HnswReply), fail);
    return;
  }
  try {
    port.postMessage({ seq, value: runNow(request) } satisfies HnswReply);
  } catch (err) {
    fail(err);
  }
}

if (!isMainThread && workerData === HNSW_WORKER && parentPort) {
  priority = new ThreadPriority(WORKER_NICENESS);
  const port = parentPort;
  port.on('message', (message: { seq: number; request: HnswRequest } | HnswCloseMessage) => {
    if ('close' in message) closeWorker(port);
    else answer(port, message.seq, message.request);
  });
}

/** See HnswCloseMessage: forgetting the graphs makes a running calibration's next pause reject. */
function closeWorker(port: NonNullable<typeof parentPort>): void {
  for (const calibration of calibrations.values()) clearTimeout(calibration.timer);
  calibrations.clear();
  indexes.clear();
  port.close();
}
