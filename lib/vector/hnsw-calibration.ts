/**
 * The query-time ef a graph needs, measured on its own data: how far a
 * search must look to reach a recall target depends on the data (a few
 * dozen candidates on clustered embeddings; hundreds on vectors without
 * structure, such as uniform noise). The queries are new points near a
 * sample of stored ones: a stored vector moved by the difference of its
 * two nearest neighbours (divided by √2), so a query lies where the data
 * lies, at the data's own local spacing from it. (A stored vector itself
 * would be too easy a query: the graph's links were chosen from its
 * neighbours.) Their exact neighbours are found by a scan of every stored
 * vector, then the smallest ef on a ladder whose searches find at least
 * RECALL_TARGET of them is chosen (the ladder's top when none does).
 *
 * The search asks CALIBRATION_ASK neighbours and keeps CALIBRATION_K, as a
 * k = 10 search through the engine does; an index scales the chosen ef by
 * the neighbours a search asks (HnswIndex.efFor).
 *
 * Where the target offers a quantized scan (quantized/scan.ts) and the
 * graph's searches take longer than its pass over every vector's signs could
 * at SCAN_BYTES_PER_MS, the scan is measured on the same queries: the fewest
 * candidates on SCAN_LADDER whose exact re-rank reaches the recall, and its
 * median time against the graph's at its ef. `scanServes` says which serves
 * searches. The work runs in chunks,
 * awaiting `pause` between them, so a worker keeps answering searches; the
 * graph may change meanwhile (the estimate is then slightly stale, never
 * wrong in kind).
 */
import { BoundedHeap } from './top-k.js';

/**
 * The recall@10 the chosen ef reaches on the sample: above the 0.95 promised, as the sample's estimate varies and
 * leans high (fresh queries found about 0.01 less than the sample did on clustered data, and up to 0.04 less on
 * uniform noise in 48 dimensions, where 0.98 chose an ef that fresh queries reached only 0.945 at).
 */
export const RECALL_TARGET = 0.99;
export const CALIBRATION_K = 10;
/** What a k = 10 search through the engine asks of the graph (k plus a few dropped for expired records). */
export const CALIBRATION_ASK = 18;
/**
 * The efs tried: from a floor where a search costs next to nothing more than at ef 16, up to where a search of
 * 50,000 x 384 costs about as much as an exact scan of them (recall comes first: uniform noise needs thousands).
 */
export const EF_LADDER = [48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096] as const;
/**
 * Bytes of signs a scan's first pass reads per ms at best on one core, about twice what AVX-512 reached here (2.4 MB
 * at 50,000 x 384 in 0.5 ms: the pass is bound by its arithmetic, not by memory): a graph whose searches take less
 * than that pass would at this pace is not measured against a scan, whose rows would be made (about 4 µs a vector,
 * and a sixth of the vectors' memory while measured) for nothing. Clustered 50,000 x 384 (0.1 ms a search against
 * 0.24) is not; uniform noise (8 ms) and graphs of a few thousand vectors are.
 */
export const SCAN_BYTES_PER_MS = 10_000_000;
/** The candidates a quantized scan re-ranks exactly for CALIBRATION_ASK neighbours asked: 2 to 32 each. */
export const SCAN_LADDER = [36, 72, 144, 288, 576] as const;
const SAMPLE = 32;
/**
 * The longest the exact scan runs between pauses: a search that comes meanwhile waits behind it. (256 vectors at
 * a time took 2-4 ms at 384 dimensions, which the searches right after a restart paid.)
 */
const SCAN_SLICE_MS = 0.5;
/** Stored vectors scanned between looks at the clock. */
const SCAN_CHECK_EVERY = 8;

/** What calibration reads from a graph: its live labels, their vectors, and searches at a given ef. */
export interface CalibrationTarget {
  labels(): number[];
  /** The stored vector of `label` (normalized for cosine), or undefined when it is gone. */
  point(label: number): number[] | undefined;
  /** Labels of the `k` nearest stored vectors, nearest first, searching with `ef`. */
  nearest(query: number[], k: number, ef: number): number[];
  /** Similarity of two stored-form vectors: higher is nearer. */
  similarity(a: readonly number[], b: readonly number[]): number;
  /** True when stored vectors are normalized (cosine): queries are normalized too. */
  readonly normalized: boolean;
  /** A quantized scan that may serve the graph's searches, where the build has one. */
  readonly scan?: ScanTarget;
}

/**
 * A search by a scan of every vector's quantized forms (a shortlist by sign bits, then the best by 4-bit codes) and
 * an exact re-rank of the best of them.
 */
export interface ScanTarget {
  /** Bytes of signs one scan reads: 8 per 64 components of every stored vector. */
  readonly bytes: number;
  /** Makes the quantized forms of every stored vector, awaiting `pause` between chunks. */
  prepare(pause: () => Promise<void>): Promise<void>;
  /** Labels of the `k` nearest stored vectors, nearest first, re-ranking the scan's best `candidates`. */
  nearest(query: number[], k: number, candidates: number): number[];
}

export interface Calibrated {
  ef: number;
  /** The recall@10 measured at that ef. */
  recall: number;
  /** The median time of a search at that ef, in ms. */
  searchMs: number;
  /** The quantized scan, when it was measured: candidates for CALIBRATION_ASK asked, its recall and median time. */
  scan?: { candidates: number; recall: number; searchMs: number };
}

/**
 * True when the measured scan should serve searches instead of the graph: it reaches the recall the graph does (or
 * the target) in less time.
 */
export function scanServes(calibrated: Calibrated): boolean {
  const scan = calibrated.scan;
  if (!scan) return false;
  return scan.recall >= Math.min(RECALL_TARGET, calibrated.recall) && scan.searchMs < calibrated.searchMs;
}

/** Measures the ef `target` needs; `pause` is awaited between chunks of work. */
export async function calibrateEf(target: CalibrationTarget, pause: () => Promise<void>): Promise<Calibrated> {
  const labels = target.labels();
  const queries = sampleOf(labels).flatMap((label) => {
    const query = queryNear(target, label);
    return query ? [query] : [];
  });
  const truth = await exactNeighbours(target, labels, queries, pause);
  const measure = (search: (query: number[]) => number[]) => measured(queries, truth, search, pause);
  let graph = { ef: EF_LADDER.at(-1)!, recall: 0, searchMs: 0 };
  for (const ef of EF_LADDER) {
    const { recall, searchMs } = await measure((query) => target.nearest(query, CALIBRATION_ASK, ef));
    graph = { ef, recall, searchMs };
    if (recall >= RECALL_TARGET) break;
  }
  if (!target.scan || graph.searchMs < target.scan.bytes / SCAN_BYTES_PER_MS) return graph;
  const scan = target.scan;
  await scan.prepare(pause);
  let scanned = { candidates: SCAN_LADDER.at(-1)!, recall: 0, searchMs: 0 };
  for (const candidates of SCAN_LADDER) {
    const { recall, searchMs } = await measure((query) => scan.nearest(query, CALIBRATION_ASK, candidates));
    scanned = { candidates, recall, searchMs };
    if (recall >= RECALL_TARGET) break;
  }
  return { ...graph, scan: scanned };
}

/** The recall@CALIBRATION_K of `search` over `queries` against `truth`, and its median time in ms. */
async function measured(
  queries: readonly number[][],
  truth: ReadonlyArray<Set<number>>,
  search: (query: number[]) => number[],
  pause: () => Promise<void>,
): Promise<{ recall: number; searchMs: number }> {
  let found = 0;
  const times: number[] = [];
  for (const [i, query] of queries.entries()) {
    const started = performance.now();
    const got = search(query).slice(0, CALIBRATION_K);
    times.push(performance.now() - started);
    found += got.filter((label) => truth[i]!.has(label)).length;
    await pause();
  }
  times.sort((a, b) => a - b);
  return {
    recall: queries.length > 0 ? found / (queries.length * CALIBRATION_K) : 1,
    searchMs: times.length > 0 ? times[times.length >> 1]! : 0,
  };
}

/** A new point near stored vector `label`: moved by the difference of its two nearest neighbours / √2. */
function queryNear(target: CalibrationTarget, label: number): number[] | undefined {
  const point = target.point(label);
  const [b, c] = target.nearest(point ?? [], 3, 64).filter((l) => l !== label);
  const pb = b === undefined ? undefined : target.point(b);
  const pc = c === undefined ? undefined : target.point(c);
  if (!point || !pb || !pc) return undefined;
  const query = point.map((x, i) => x + (pb[i]! - pc[i]!) / Math.SQRT2);
  if (!target.normalized) return query;
  const norm = Math.hypot(...query);
  return norm > 0 ? query.map((x) => x / norm) : undefined;
}

/** SAMPLE labels spread over the graph, the same ones for the same labels. */
function sampleOf(labels: readonly number[]): number[] {
  if (labels.length <= SAMPLE) return [...labels];
  const step = labels.length / SAMPLE;
  return Array.from({ length: SAMPLE }, (_, i) => labels[Math.floor(i * step + step / 2)]!);
}

/** Each query's CALIBRATION_K nearest stored vectors, by a scan of them all. */
async function exactNeighbours(
  target: CalibrationTarget,
  labels: readonly number[],
  queries: readonly number[][],
  pause: () => Promise<void>,
): Promise<Array<Set<number>>> {
  const tops = queries.map(() => new BoundedHeap<[number, number]>(CALIBRATION_K, (a, b) => b[0] - a[0]));
  let sliceStart = performance.now();
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    const point = target.point(label);
    if (point) for (const [q, query] of queries.entries()) tops[q]!.push([target.similarity(query, point), label]);
    if (i % SCAN_CHECK_EVERY === SCAN_CHECK_EVERY - 1 && performance.now() - sliceStart >= SCAN_SLICE_MS) {
      await pause();
      sliceStart = performance.now();
    }
  }
  return tops.map((top) => new Set(top.items().map(([, label]) => label)));
}
