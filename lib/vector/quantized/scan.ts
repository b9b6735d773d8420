/**
 * A graph's quantized scan (HnswIndex): the 4-bit codes of its vectors
 * (rows.ts) and the native search over them (searchQuantized, in hnswlib's
 * AVX2 and AVX-512 builds), which re-ranks its best candidates exactly
 * against the graph's own stored vectors and answers labels and hnswlib's
 * distances. Made, and its codes filled, for a calibration that measures it
 * against the graph; kept by the index while it serves.
 */
import { searchQuantized, type hnswlib } from '../native/hnswlib-build.js';
import type { Metric } from '../distance.js';
import { QuantizedRows, rowBytes } from './rows.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** The longest `fill` makes codes between pauses (searches wait meanwhile). */
const FILL_SLICE_MS = 2;

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

  /** Bytes of codes a scan of `vectors` vectors reads. */
  bytesFor(vectors: number): number {
    return vectors * rowBytes(this.dimensions);
  }

  /** Keeps the codes of the vector the graph stores under `label` (after an insert). */
  set(label: number): void {
    this.rows.set(label, this.graph.getPoint(label));
  }

  delete(label: number): void {
    this.rows.delete(label);
  }

  /**
   * Makes the codes of every label `labels` lists that `live` still says is in the graph and has none yet, awaiting
   * `pause` every FILL_SLICE_MS.
   */
  async fill(labels: readonly number[], live: (label: number) => boolean, pause: () => Promise<void>): Promise<void> {
    let sliceStart = performance.now();
    for (const label of labels) {
      if (!this.rows.has(label) && live(label)) this.set(label);
      if (performance.now() - sliceStart >= FILL_SLICE_MS) {
        await pause();
        sliceStart = performance.now();
      }
    }
  }

  /**
   * The `wanted` nearest labels (among the labels `among`, when given), re-ranking the scan's best `candidates`
   * exactly, and hnswlib's distances to them, nearest first.
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
    const view = this.rows.view();
    const found = searchQuantized!(
      this.graph,
      view.codes,
      view.scales,
      view.biases,
      view.labels,
      Float32Array.from(query),
      Math.max(candidates, wanted),
      labels,
      distances,
      among && this.rows.allowing(among),
    );
    return { labels: labels.subarray(0, found), distances: distances.subarray(0, found) };
  }
}
