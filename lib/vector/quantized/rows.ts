/**
 * 4-bit codes of a graph's vectors, for searches that scan them all instead
 * of walking the graph (HnswIndex's quantized scan): on data without
 * neighbourhoods, such as uniform noise, a graph needs an ef in the
 * thousands to reach its recall, and a scan of half a byte per component
 * reads an eighth of what an exact scan of floats reads (9.6 MB at 50,000 x
 * 384: about 0.5 ms on one core with AVX-512, against 0.75 ms for a byte
 * per component) and then scores only its best candidates exactly
 * (searchQuantized in ../native/hnswlib-parallel.cc, driven by scan.ts), which makes up for the
 * coarse codes: calibration measures how many it needs.
 *
 * Each vector is kept in its stored form (normalized for cosine) as codes
 * c = round(x / s) in -7..7, with s its largest component's magnitude / 7, so
 * every vector uses the whole range whatever its scale. A row is ceil(n / 2)
 * bytes: byte j holds c + 8 of component j in its low nibble and of component
 * j + ceil(n / 2) in its high one (8, a zero, past the end), so that the
 * query's codes of the low and high nibbles are two runs. A row's estimate for
 * a query is s_query · scale · (codes · query codes) + bias: for cosine and
 * dot product scale = s and bias = 0 (the dot product); for euclidean
 * scale = 2s and bias = -|x|², which orders rows as -|x - q|² does (|q|² is
 * the same for every row). Rows are reused once freed; a free row has bias
 * -Infinity, which the scan skips.
 */
import type { Metric } from '../distance.js';

/** Bias of a free row: never a candidate. */
const FREE = -Infinity;
/** Rows allocated when the first vector comes; the arrays double when full. */
const FIRST_ROWS = 1024;

/** The largest code's magnitude: 4 bits, -7..7 (8 would need a sixteenth value). */
export const CODE_MAX = 7;

/** Bytes of a row of `dimensions` components. */
export const rowBytes = (dimensions: number): number => Math.ceil(dimensions / 2);

/**
 * The codes of `vector` into `codes` from `offset` (rowBytes(vector.length) bytes, laid out as the header says);
 * returns s, the value of one step (0 for a zero vector).
 */
export function quantizeInto(vector: ArrayLike<number>, codes: Uint8Array, offset: number): number {
  let largest = 0;
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i]!));
  const step = largest / CODE_MAX;
  const half = rowBytes(vector.length);
  const code = (i: number) => (step > 0 && i < vector.length ? Math.round(vector[i]! / step) : 0) + 8;
  for (let j = 0; j < half; j++) codes[offset + j] = code(j) | (code(j + half) << 4);
  return step;
}

export class QuantizedRows {
  private codes: Uint8Array;
  /** Bytes of one row. */
  private readonly half: number;
  private scales: Float32Array;
  private biases: Float32Array;
  private labels: Uint32Array;
  private readonly rowOf = new Map<number, number>();
  private readonly freeRows: number[] = [];
  /** Rows ever used: the scan reads rows [0, used). */
  private used = 0;

  constructor(
    readonly dimensions: number,
    readonly metric: Metric,
  ) {
    this.half = rowBytes(dimensions);
    this.codes = new Uint8Array(0);
    this.scales = new Float32Array(0);
    this.biases = new Float32Array(0);
    this.labels = new Uint32Array(0);
  }

  /** Vectors held. */
  get size(): number {
    return this.rowOf.size;
  }

  /** Bytes the rows take (allocated, used or not). */
  get bytes(): number {
    return this.codes.byteLength + this.scales.byteLength + this.biases.byteLength + this.labels.byteLength;
  }

  has(label: number): boolean {
    return this.rowOf.has(label);
  }

  /** Keeps `vector` (stored form, `dimensions` long) as the codes of `label`, replacing those it had. */
  set(label: number, vector: ArrayLike<number>): void {
    let row = this.rowOf.get(label);
    if (row === undefined) {
      row = this.freeRows.pop() ?? this.used++;
      if (row >= this.labels.length) this.grow();
      this.rowOf.set(label, row);
    }
    const step = quantizeInto(vector, this.codes, row * this.half);
    this.labels[row] = label;
    if (this.metric === 'euclidean') {
      let squared = 0;
      for (let i = 0; i < vector.length; i++) squared += vector[i]! * vector[i]!;
      this.scales[row] = 2 * step;
      this.biases[row] = -squared;
    } else {
      this.scales[row] = step;
      this.biases[row] = 0;
    }
  }

  /** Lets `label`'s row go; a no-op when it has none. */
  delete(label: number): void {
    const row = this.rowOf.get(label);
    if (row === undefined) return;
    this.rowOf.delete(label);
    this.biases[row] = FREE;
    this.scales[row] = 0;
    this.freeRows.push(row);
  }

  /** A byte per row in use, 1 for the rows of `labels` (those that have one), for a filtered scan. */
  allowing(labels: Iterable<number>): Uint8Array {
    const allowed = new Uint8Array(this.used);
    for (const label of labels) {
      const row = this.rowOf.get(label);
      if (row !== undefined) allowed[row] = 1;
    }
    return allowed;
  }

  /** The rows in use, as searchQuantized reads them (views, not copies: valid until the next set). */
  view(): { codes: Uint8Array; scales: Float32Array; biases: Float32Array; labels: Uint32Array } {
    const rows = this.used;
    return {
      codes: this.codes.subarray(0, rows * this.half),
      scales: this.scales.subarray(0, rows),
      biases: this.biases.subarray(0, rows),
      labels: this.labels.subarray(0, rows),
    };
  }

  private grow(): void {
    const rows = Math.max(FIRST_ROWS, this.labels.length * 2);
    const codes = new Uint8Array(rows * this.half);
    codes.set(this.codes);
    const scales = new Float32Array(rows);
    scales.set(this.scales);
    const biases = new Float32Array(rows).fill(FREE);
    biases.set(this.biases);
    const labels = new Uint32Array(rows);
    labels.set(this.labels);
    this.codes = codes;
    this.scales = scales;
    this.biases = biases;
    this.labels = labels;
  }
}
