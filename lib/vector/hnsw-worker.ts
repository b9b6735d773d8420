/**
 * The worker-thread side of hnsw-thread.ts: owns the HNSW graphs of one
 * database (an `HnswIndex` per key) and answers the main thread's requests
 * in the order they arrive, so a search sees every batch posted before it.
 *
 * A batch is held on arrival (HnswIndex.hold) and applied HELD_CHUNK_MS at a
 * time, one chunk per turn of this thread's loop, with requests answered
 * between chunks; a search scores the held vectors exactly beside the graph,
 * so it never waits for more than one chunk. A batch is answered once it is
 * applied, so the main thread's limit on batches in flight bounds what is
 * held. A save applies what was held before it was asked for, then writes
 * on the libuv thread pool while the batches that arrive are held; the next
 * save of the graph waits for it. A load finishes before later requests for
 * the same key run. Once a graph has grown to twice the size it was last
 * calibrated at (and holds CALIBRATE_FROM vectors), every change is applied
 * and no batch has come for CALIBRATE_IDLE_MS, its query-time ef is
 * calibrated on its data (HnswIndex.calibrate), in chunks between which
 * requests are answered. A batch that arrives meanwhile stops it at its next
 * chunk (its measure would be of a graph that no longer is, and it would
 * take the build's time), and it starts again at the next pause.
 * Started only by HnswThread, with its `workerData`.
 */
import { availableParallelism } from 'node:os';
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

/**
 * What `apply` answers once the batch is in the graph: its live vectors, and the mean cost of one change in the
 * last chunk applied (0 for a batch without inserts).
 */
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

/** Told unasked when a graph's ef has been calibrated, and whether a quantized scan serves its searches. */
export interface HnswCalibrated {
  calibrated: string;
  ef: number;
  scanning: boolean;
}

const indexes = new Map<string, HnswIndex>();
/**
 * Threads that apply a graph's held inserts (HnswIndex.buildThreads): as many as the cores this process may run on.
 * They run at this thread's lowered priority, so the request thread keeps its core when it has work.
 */
const BUILD_THREADS = availableParallelism();
/** Graphs smaller than this keep the default ef: a search of them costs little whatever the ef. */
const CALIBRATE_FROM = 1000;
const CALIBRATE_IDLE_MS = 200;
/**
 * Time spent applying held changes per turn, what a search may wait for (at this thread's lowered priority, several
 * times as long on a busy core): half the work of one batch (background-builds.ts).
 */
const HELD_CHUNK_MS = 4;

/** One wait for a graph's changes held up to `mark` to be applied: a batch's answer, or a save's start. */
interface MarkWaiter {
  mark: number;
  done: () => void;
  fail: (err: unknown) => void;
}
/** Per graph, oldest first (marks only grow). */
const markWaiters = new Map<string, MarkWaiter[]>();
/** Graphs whose held changes are being applied (drainLater). */
const draining = new Set<string>();
/** Per graph: the mean cost of one change in the last chunk applied (µs), what a batch's answer reports. */
const changeUs = new Map<string, number>();
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

/** How a request is answered: once, with a value or an error, now or later. */
interface Answer {
  reply: (value: unknown) => void;
  fail: (err: unknown) => void;
}

function buildingOnEveryCore(index: HnswIndex): HnswIndex {
  index.buildThreads = BUILD_THREADS;
  return index;
}

function indexOf(key: string): HnswIndex {
  const index = indexes.get(key);
  if (!index) throw new Error(`no HNSW index '${key}' in the worker`);
  return index;
}

/** Holds `batch`'s changes (searches score them exactly meanwhile) and answers once drainLater has applied them. */
function holdBatch(key: string, index: HnswIndex, batch: HnswBatchMessage, answer: Answer): void {
  const dims = index.dimensions;
  index.hold();
  let inserts = 0;
  for (let i = 0; i < batch.ids.length; i++) {
    const row = batch.rows[i]!;
    if (row < 0) index.remove(batch.ids[i]!);
    else {
      index.add(batch.ids[i]!, batch.vectors.subarray(row * dims, (row + 1) * dims));
      inserts++;
    }
  }
  const applied = (): AppliedBatch => ({ size: index.size(), insertUs: inserts > 0 ? (changeUs.get(key) ?? 0) : 0 });
  whenApplied(key, index, index.heldMark, { done: () => answer.reply(applied()), fail: answer.fail });
  calibrateLater(key, index);
}

/** Runs `waiter` once `index` has applied the changes held up to `mark` (at once if it has). */
function whenApplied(key: string, index: HnswIndex, mark: number, waiter: Omit<MarkWaiter, 'mark'>): void {
  let waiters = markWaiters.get(key);
  if (!waiters) markWaiters.set(key, (waiters = []));
  waiters.push({ mark, ...waiter });
  answerApplied(key, index);
  drainLater(key, index);
}

/** Ends the waits of `key` whose changes are all applied, oldest first. */
function answerApplied(key: string, index: HnswIndex): void {
  const waiters = markWaiters.get(key);
  while (waiters?.length && index.applied(waiters[0]!.mark)) waiters.shift()!.done();
}

function search(index: HnswIndex, request: Extract<HnswRequest, { op: 'search' }>): VectorHit[] {
  const allowed = request.allowed && new Set(request.allowed);
  return index.search(Array.from(request.query), request.k, allowed && ((id) => allowed.has(id)));
}

/** Runs a request that needs no waiting, in order with the batches and searches around it. */
function runNow(request: Exclude<HnswRequest, { op: 'load' | 'save' }>, { reply, fail }: Answer): void {
  switch (request.op) {
    case 'create':
      indexes.set(request.key, buildingOnEveryCore(new HnswIndex(request.options)));
      return reply(undefined);
    case 'apply':
      return holdBatch(request.key, indexOf(request.key), request, { reply, fail });
    case 'search':
      priority?.foreground();
      return reply(search(indexOf(request.key), request));
    case 'ids': {
      // Every change posted before is in the graph first (unless a save runs), its batches answered before this.
      const index = indexOf(request.key);
      index.drainHeld(Infinity);
      answerApplied(request.key, index);
      return reply([...index.ids()]);
    }
    case 'drop': {
      indexes.delete(request.key);
      clearTimeout(calibrations.get(request.key)?.timer);
      calibrations.delete(request.key);
      changeUs.delete(request.key);
      const waiters = markWaiters.get(request.key) ?? [];
      markWaiters.delete(request.key);
      for (const waiter of waiters) waiter.done();
      return reply(undefined);
    }
    default:
      throw new Error(`unknown HNSW request ${String(request satisfies never as unknown)}`);
  }
}

/** Loads and saves (on the thread pool), and requests for a key still loading. */
async function runLater(request: HnswRequest, answer: Answer): Promise<void> {
  await loading.get(request.key)?.catch(() => undefined);
  if (request.op === 'save') return answer.reply(await saveInTurn(request.key, indexOf(request.key), request.file));
  if (request.op !== 'load') return runNow(request, answer);
  const loaded = HnswIndex.load(request.file, request.state, request.options);
  loading.set(request.key, loaded);
  try {
    const index = buildingOnEveryCore(await loaded);
    indexes.set(request.key, index);
    calibrateLater(request.key, index);
    answer.reply(index.size());
  } finally {
    loading.delete(request.key);
  }
}

/**
 * Saves `index` once the save before it has ended and the changes held when this was asked for are applied (by
 * drainLater, a chunk at a time): the file holds every change posted before the request.
 */
function saveInTurn(key: string, index: HnswIndex, file: string): Promise<HnswSavedState> {
  const mark = index.heldMark;
  const previous = saves.get(key);
  const saved = (async () => {
    await previous?.catch(() => undefined);
    await new Promise<void>((done, fail) => whenApplied(key, index, mark, { done, fail }));
    if (indexes.get(key) !== index) throw new Error(`HNSW index '${key}' was dropped`);
    try {
      return await index.save(file);
    } finally {
      drainLater(key, index);
    }
  })();
  saves.set(key, saved);
  const forget = () => {
    if (saves.get(key) === saved) saves.delete(key);
  };
  saved.then(forget, forget);
  return saved;
}

/**
 * Applies the changes `index` holds, HELD_CHUNK_MS per turn of this thread's loop at the build's priority, answering
 * the batches and saves that wait for them; stops while a save writes (it starts this again when it ends) and once
 * the graph is dropped. Calibrates once nothing is held.
 */
function drainLater(key: string, index: HnswIndex): void {
  if (draining.has(key)) return;
  draining.add(key);
  const chunk = (): void => {
    if (indexes.get(key) !== index || index.saveInProgress) {
      draining.delete(key);
      return;
    }
    priority?.background();
    const before = index.heldCount;
    const started = performance.now();
    let left: number;
    try {
      left = index.drainHeld(Infinity, started + HELD_CHUNK_MS);
    } catch (err) {
      draining.delete(key);
      for (const waiter of markWaiters.get(key)?.splice(0) ?? []) waiter.fail(err);
      return;
    }
    if (before > left) changeUs.set(key, ((performance.now() - started) * 1000) / (before - left));
    answerApplied(key, index);
    if (left > 0) {
      setImmediate(chunk);
      return;
    }
    draining.delete(key);
    calibrateLater(key, index);
  };
  setImmediate(chunk);
}

/** Why a calibration stopped at a pause: changes came in, which it would have been measured without. */
const OVERTAKEN = new Error('calibration overtaken by changes');

/** Calibrates `index`'s ef once it has grown enough and the batches have paused (see the header). */
function calibrateLater(key: string, index: HnswIndex): void {
  if (index.efSearch !== undefined) return;
  let calibration = calibrations.get(key);
  if (!calibration) calibrations.set(key, (calibration = { size: 0 }));
  if (calibration.running || index.size() < Math.max(CALIBRATE_FROM, 2 * calibration.size)) return;
  clearTimeout(calibration.timer);
  const current = calibration;
  current.timer = setTimeout(() => {
    // A build still catching up would overtake the calibration, which would then be measured for nothing, in the
    // build's time: drainLater asks again once nothing is held.
    if (index.heldCount > 0 || draining.has(key)) return;
    current.running = true;
    priority?.foreground();
    const size = index.size();
    const mark = index.heldMark;
    const pause = () =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          if (indexes.get(key) !== index) return reject(new Error('dropped'));
          // Overtaken: the calibration stops here, and starts again once the batches are applied and pause.
          if (index.heldMark !== mark) return reject(OVERTAKEN);
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
        parentPort?.postMessage({
          calibrated: key,
          ef: calibrated.ef,
          scanning: index.scanning,
        } satisfies HnswCalibrated);
      },
      (err) => {
        current.running = false;
        // Overtaken by a batch: drainLater asks again once it is applied, unless it already has and found this running.
        if (err === OVERTAKEN && indexes.get(key) === index) calibrateLater(key, index);
      },
    );
  }, CALIBRATE_IDLE_MS);
  current.timer.unref();
}

function answer(port: NonNullable<typeof parentPort>, seq: number, request: HnswRequest): void {
  const answering: Answer = {
    reply: (value) => port.postMessage({ seq, value } satisfies HnswReply),
    fail: (err) =>
      port.postMessage({ seq, error: err instanceof Error ? err.message : String(err) } satisfies HnswReply),
  };
  if (request.op === 'load' || request.op === 'save' || loading.has(request.key)) {
    runLater(request, answering).catch(answering.fail);
    return;
  }
  try {
    runNow(request, answering);
  } catch (err) {
    answering.fail(err);
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
