/**
 * Quantized forms of a graph's vectors, for searches that scan them all
 * instead of walking the graph (HnswIndex's quantized scan): on data without
 * neighbourhoods, such as uniform noise, a graph needs an ef in the
 * thousands to reach its recall. The native scan (searchQuantized in
 * ../native/hnswlib-parallel.cc, driven by scan.ts) reads each row's sign
 * bits (48 bytes at 384 dimensions) and keeps a shortlist, reads the 4-bit
 * codes of those (192 bytes), and scores the best of them exactly against
 * the graph's own vectors; calibration measures how many it needs. At
 * 50,000 x 384 a scan of the codes alone reads 9.6 MB, which on a core
 * shared with the request thread and with other tenants' memory traffic took
 * 1.3 to 2 ms; the signs are a quarter of that.
 *
 * Both are taken of a vector's offset from a centre, the mean of the
 * vectors the rows were first made of (zero until then), so that data off the
 * origin (every component positive, say) still spreads over the codes and
 * splits by the signs: x · q = centre · q + (x - centre) · q, and centre · q
 * is the same for every row, so the estimates order rows alike.
 *
 * 4-bit codes: each offset as c = round(x / s) in -7..7, with s its largest
 * component's magnitude / 7, so every vector uses the whole range whatever
 * its scale. A row is ceil(n / 2) bytes: byte j holds c + 8 of component j
 * in its low nibble and of component j + ceil(n / 2) in its high one (8, a
 * zero, past the end), so that the query's codes of the low and high nibbles
 * are two runs. A row's estimate for a query is
 * s_query · scale · (codes · query codes) + bias: for cosine and dot product
 * scale = s and bias = 0 (the dot product); for euclidean scale = 2s and
 * bias = -|x|² (of the vector itself), which orders rows as -|x - q|² does
 * (|q|² is the same for every row).
 *
 * Signs: bit j (of 64-bit little-endian words, 8 bytes per 64 components) is
 * set when component j of the offset is above 0, with a sign scale of the
 * mean magnitude of the offset's components (twice it for euclidean), and the
 * same bias.
 *
 * Rows are reused once freed; a free row has bias -Infinity, which the scan
 * skips.
 */
import { dotProduct, type Metric } from '../distance.js';

/** Bias of a free row: never a candidate. */
const FREE = -Infinity;
/** The largest finite 32-bit float. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * `x` within the finite 32-bit floats: a vector of large components
 * (|x|² past 3.4e38) keeps a finite bias, so its row is never taken for a free one.
 */
function finite32(x: number): number {
  return Math.min(FLOAT32_MAX, Math.max(-FLOAT32_MAX, x));
}

/** Rows allocated when the first vector comes; the arrays double when full. */
const FIRST_ROWS = 1024;

/** The largest code's magnitude: 4 bits, -7..7 (8 would need a sixteenth value). */
export const CODE_MAX = 7;

/** Bytes of a row's codes, of `dimensions` components. */
export const rowBytes = (dimensions: number): number => Math.ceil(dimensions / 2);

/** Bytes of a row's sign bits: whole 64-bit words. */
export const signBytes = (dimensions: number): number => 8 * Math.ceil(dimensions / 64);

/**
 * The sign bits of `vector` into `signs` from `offset` (signBytes(vector.length) bytes, every bit written: set for a
 * component above 0); returns the mean magnitude of its components.
 */
export function signsInto(vector: ArrayLike<number>, signs: Uint8Array, offset: number): number {
  signs.fill(0, offset, offset + signBytes(vector.length));
  let magnitude = 0;
  for (let i = 0; i < vector.length; i++) {
    if (vector[i]! > 0) signs[offset + (i >> 3)]! |= 1 << (i & 7);
    magnitude += Math.abs(vector[i]!);
  }
  return vector.length > 0 ? magnitude / vector.length : 0;
}

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

/** The rows in use, as searchQuantized reads them. */
export interface RowsView {
  codes: Uint8Array;
  scales: Float32Array;
  biases: Float32Array;
  labels: Uint32Array;
  signs: Uint8Array;
  signScales: Float32Array;
}

export class QuantizedRows {
  private codes: Uint8Array;
  /** Bytes of one row. */
  private readonly half: number;
  private scales: Float32Array;
  private biases: Float32Array;
  private labels: Uint32Array;
  private signs: Uint8Array;
  private signScales: Float32Array;
  /** Bytes of one row's signs. */
  private readonly signRow: number;
  /** The point the codes and signs are taken about (see centreOn). */
  private centre: Float32Array;
  /** A vector's offset from the centre, while its row is made. */
  private readonly offset: Float64Array;
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
    this.signRow = signBytes(dimensions);
    this.signs = new Uint8Array(0);
    this.signScales = new Float32Array(0);
    this.centre = new Float32Array(dimensions);
    this.offset = new Float64Array(dimensions);
  }

  /**
   * Takes codes and signs about `centre` (the mean of the vectors about to be set) instead of the origin. Only while
   * no row is held: every row's must be about the same point.
   */
  centreOn(centre: ArrayLike<number>): void {
    if (this.size > 0) throw new Error('the centre of quantized rows can be set only while they hold none');
    if (centre.length !== this.dimensions) throw new Error(`a centre has ${this.dimensions} components`);
    this.centre = Float32Array.from(centre);
  }

  /** Vectors held. */
  get size(): number {
    return this.rowOf.size;
  }

  /** Bytes the rows take (allocated, used or not). */
  get bytes(): number {
    const signs = this.signs.byteLength + this.signScales.byteLength;
    return this.codes.byteLength + this.scales.byteLength + this.biases.byteLength + this.labels.byteLength + signs;
  }

  has(label: number): boolean {
    return this.rowOf.has(label);
  }

  /** Keeps `vector` (stored form, `dimensions` long) as the row of `label`, replacing the one it had. */
  set(label: number, vector: ArrayLike<number>): void {
    let row = this.rowOf.get(label);
    if (row === undefined) {
      row = this.freeRows.pop() ?? this.used++;
      if (row >= this.labels.length) this.grow();
      this.rowOf.set(label, row);
    }
    const offset = this.offset;
    for (let i = 0; i < offset.length; i++) offset[i] = vector[i]! - this.centre[i]!;
    const step = quantizeInto(offset, this.codes, row * this.half);
    const signScale = signsInto(offset, this.signs, row * this.signRow);
    this.labels[row] = label;
    // Euclidean's estimate is 2 x · q - |x|² (see the header).
    const twice = this.metric === 'euclidean' ? 2 : 1;
    this.scales[row] = finite32(twice * step);
    this.signScales[row] = finite32(twice * signScale);
    this.biases[row] = this.metric === 'euclidean' ? finite32(-dotProduct(vector, vector)) : 0;
  }

  /** Lets `label`'s row go; a no-op when it has none. */
  delete(label: number): void {
    const row = this.rowOf.get(label);
    if (row === undefined) return;
    this.rowOf.delete(label);
    this.biases[row] = FREE;
    this.scales[row] = 0;
    this.signScales[row] = 0;
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
  view(): RowsView {
    const rows = this.used;
    return {
      codes: this.codes.subarray(0, rows * this.half),
      scales: this.scales.subarray(0, rows),
      biases: this.biases.subarray(0, rows),
      labels: this.labels.subarray(0, rows),
      signs: this.signs.subarray(0, rows * this.signRow),
      signScales: this.signScales.subarray(0, rows),
    };
  }

  private grow(): void {
    const rows = Math.max(FIRST_ROWS, this.labels.length * 2);
    this.codes = grown(this.codes, rows * this.half);
    this.scales = grown(this.scales, rows);
    this.biases = grown(this.biases, rows, FREE);
    this.labels = grown(this.labels, rows);
    this.signs = grown(this.signs, rows * this.signRow);
    this.signScales = grown(this.signScales, rows);
  }
}

type RowArray = Uint8Array | Uint32Array | Float32Array;

/** A copy of `array` in `length` elements, those past the old ones `fill`. */
function grown<A extends RowArray>(array: A, length: number, fill = 0): A {
  const copy = new (array.constructor as new (length: number) => A)(length);
  copy.fill(fill, array.length);
  copy.set(array);
  return copy;
}
