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
 * the neighbours a search asks (HnswIndex.efFor). The work runs in chunks,
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
}

export interface Calibrated {
  ef: number;
  /** The recall@10 measured at that ef. */
  recall: number;
}

/** Measures the ef `target` needs; `pause` is awaited between chunks of work. */
export async function calibrateEf(target: CalibrationTarget, pause: () => Promise<void>): Promise<Calibrated> {
  const labels = target.labels();
  const queries = sampleOf(labels).flatMap((label) => {
    const query = queryNear(target, label);
    return query ? [query] : [];
  });
  const truth = await exactNeighbours(target, labels, queries, pause);
  let recall = 0;
  for (const ef of EF_LADDER) {
    let found = 0;
    for (const [i, query] of queries.entries()) {
      const got = target.nearest(query, CALIBRATION_ASK, ef).slice(0, CALIBRATION_K);
      found += got.filter((label) => truth[i]!.has(label)).length;
      await pause();
    }
    recall = queries.length > 0 ? found / (queries.length * CALIBRATION_K) : 1;
    if (recall >= RECALL_TARGET) return { ef, recall };
  }
  return { ef: EF_LADDER.at(-1)!, recall };
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
