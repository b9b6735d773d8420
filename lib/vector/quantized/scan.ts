/**
 * A graph's quantized scan (HnswIndex): the sign bits and 4-bit codes of its
 * vectors (rows.ts) and the native search over them (searchQuantized, in
 * hnswlib's AVX2 and AVX-512 builds), which shortlists rows by their signs,
 * picks candidates among them by their codes, re-ranks those exactly against
 * the graph's own stored vectors and answers labels and hnswlib's distances.
 * Made, and its rows filled, for a calibration that measures it against the
 * graph; kept by the index while it serves.
 */
import { searchQuantized, type hnswlib } from '../native/hnswlib-build.js';
import type { Metric } from '../distance.js';
import { QuantizedRows, signBytes } from './rows.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** The longest `fill` works between pauses (searches wait meanwhile). */
const FILL_SLICE_MS = 2;
/**
 * Rows the signs shortlist per candidate the codes pick. On 50,000 x 384 uniform vectors the true 10 nearest were
 * all among the best 2,000 by their signs and nearly all (0.997) among the best 1,000; 32 per candidate is 1,152 for
 * the 36 candidates that reach recall 0.99 there. Calibration's candidates ladder raises both.
 */
const SHORTLIST_PER_CANDIDATE = 32;

/** Work in slices of FILL_SLICE_MS: `due` says when the slice is over, `rest` awaits the pause and starts the next. */
class Slices {
  private start = performance.now();
  constructor(private readonly pause: () => Promise<void>) {}

  due(): boolean {
    return performance.now() - this.start >= FILL_SLICE_MS;
  }

  async rest(): Promise<void> {
    await this.pause();
    this.start = performance.now();
  }
}

export class QuantizedScan {
  readonly rows: QuantizedRows;

  /** A scan of `graph`'s vectors, or undefined where the loaded build has none (hnswlib-node's own). */
  static of(graph: Graph, dimensions: number, metric: Metric): QuantizedScan | undefined {
    return searchQuantized ? new QuantizedScan(graph, dimensions, metric) : undefined;
  }

  private constructor(
    private readonly graph: Graph,
    readonly dimensions: number,
    metric: Metric,
  ) {
    this.rows = new QuantizedRows(dimensions, metric);
  }

  /** Bytes a scan of `vectors` vectors reads: every row's signs (the codes of the shortlist are few). */
  bytesFor(vectors: number): number {
    return vectors * signBytes(this.dimensions);
  }

  /** Keeps the rows of the vector the graph stores under `label` (after an insert). */
  set(label: number): void {
    this.rows.set(label, this.graph.getPoint(label));
  }

  delete(label: number): void {
    this.rows.delete(label);
  }

  /**
   * Makes the rows of every label `labels` lists that `live` still says is in the graph and has none yet, awaiting
   * `pause` every FILL_SLICE_MS. A fill into empty rows takes their codes and signs about the mean of those vectors.
   */
  async fill(labels: readonly number[], live: (label: number) => boolean, pause: () => Promise<void>): Promise<void> {
    const slices = new Slices(pause);
    if (this.rows.size === 0) {
      const sum = new Float64Array(this.dimensions);
      let count = 0;
      for (const label of labels) {
        if (live(label)) {
          const point = this.graph.getPoint(label);
          for (let i = 0; i < sum.length; i++) sum[i]! += point[i]!;
          count++;
        }
        if (slices.due()) await slices.rest();
      }
      // A scan that serves takes inserts during the pauses: those rows are about the centre they found.
      if (count > 0 && this.rows.size === 0) this.rows.centreOn(sum.map((s) => s / count));
    }
    for (const label of labels) {
      if (!this.rows.has(label) && live(label)) this.set(label);
      if (slices.due()) await slices.rest();
    }
  }

  /**
   * The `wanted` nearest labels (among the labels `among`, when given), re-ranking the scan's best `candidates`
   * exactly (picked among SHORTLIST_PER_CANDIDATE times as many shortlisted by their signs), and hnswlib's distances
   * to them, nearest first.
   */
  nearest(
    query: readonly number[],
    wanted: number,
    candidates: number,
    among?: readonly number[],
  ): { labels: Uint32Array; distances: Float32Array } {
    const labels = new Uint32Array(wanted);
    const distances = new Float32Array(wanted);
    if (wanted === 0) return { labels, distances };
    const picked = Math.max(candidates, wanted);
    const found = searchQuantized!(
      this.graph,
      this.rows.view(),
      Float32Array.from(query),
      SHORTLIST_PER_CANDIDATE * picked,
      picked,
      labels,
      distances,
      among && this.rows.allowing(among),
    );
    return { labels: labels.subarray(0, found), distances: distances.subarray(0, found) };
  }
}
