/**
 * Quantized forms of a graph's vectors (quantized/rows.ts): 4-bit codes,
 * each component within half a step of the vector, every vector using the
 * whole -7..7 range, the nibble layout the native scan reads (component j
 * low, j + half high, stored + 8); sign bits about a centre in whole 64-bit
 * words with their scale; the scale and bias that make a row's estimate
 * order rows as each metric does; and the rows' bookkeeping (replace, free,
 * reuse, growth).
 */
import { expect } from 'chai';
import {
  CODE_MAX,
  QuantizedRows,
  quantizeInto,
  rowBytes,
  signBytes,
  signsInto,
} from '../../../lib/vector/quantized/rows.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const D = 8;

/** The signed codes of the row at `offset`, component by component (the layout of the header). */
function decode(codes: Uint8Array, offset: number, dimensions: number): number[] {
  const half = rowBytes(dimensions);
  return Array.from({ length: dimensions }, (_, i) => {
    const byte = codes[offset + (i < half ? i : i - half)]!;
    return (i < half ? byte & 0x0f : byte >> 4) - 8;
  });
}

function rowOf(rows: QuantizedRows, label: number) {
  const view = rows.view();
  const row = [...view.labels].findIndex((l, r) => l === label && view.biases[r] !== -Infinity);
  return {
    row,
    codes: decode(view.codes, row * rowBytes(D), D),
    scale: view.scales[row]!,
    bias: view.biases[row]!,
  };
}

describe('vector/quantized/rows: quantized forms of stored vectors', () => {
  it('keeps each component within half a step, its largest at ±7, in rows of half a byte per component', () => {
    const u = mulberry32(3);
    for (const dimensions of [384, 7, 1]) {
      for (const magnitude of [1e-6, 0.05, 1, 1e6]) {
        const vector = Array.from({ length: dimensions }, () => (u() * 2 - 1) * magnitude);
        const codes = new Uint8Array(rowBytes(dimensions) + 1).fill(0xaa);
        const step = quantizeInto(vector, codes, 0);
        const largest = Math.max(...vector.map(Math.abs));
        expect(step).to.be.closeTo(largest / CODE_MAX, largest * 1e-12);
        const signed = decode(codes, 0, dimensions);
        expect(Math.max(...signed.map(Math.abs))).to.equal(CODE_MAX);
        vector.forEach((x, i) => expect(Math.abs(signed[i]! * step - x)).to.be.at.most(step / 2 + 1e-12 * magnitude));
        expect(codes[rowBytes(dimensions)], 'nothing written past the row').to.equal(0xaa);
      }
    }
  });

  it('lays component j in the low nibble and j + half in the high one, as code + 8, with a zero past an odd end', () => {
    const codes = new Uint8Array(3);
    // 5 components: half = 3; bytes hold (0, 3), (1, 4), (2, past the end).
    quantizeInto([7, -7, 1, 0, -3], codes, 0);
    expect([...codes]).to.deep.equal([(7 + 8) | ((0 + 8) << 4), (-7 + 8) | ((-3 + 8) << 4), (1 + 8) | (8 << 4)]);
  });

  it('codes a zero vector as zeros with step 0, and writes from the offset given', () => {
    const codes = new Uint8Array(2 * rowBytes(D)).fill(9);
    expect(quantizeInto(new Array(D).fill(0), codes, rowBytes(D))).to.equal(0);
    expect(decode(codes, rowBytes(D), D)).to.deep.equal(new Array(D).fill(0));
    expect([...codes.subarray(0, rowBytes(D))], 'the row before untouched').to.deep.equal(
      new Array(rowBytes(D)).fill(9),
    );
  });

  it('estimates dot products for cosine and dot product: scale s, bias 0', () => {
    for (const metric of ['cosine', 'dotproduct'] as const) {
      const rows = new QuantizedRows(D, metric);
      rows.set(7, [0.5, -0.25, 0, 0, 0, 0, 0, 1]);
      const { codes, scale, bias } = rowOf(rows, 7);
      expect(codes).to.deep.equal([4, -2, 0, 0, 0, 0, 0, 7]);
      expect(scale).to.be.closeTo(1 / 7, 1e-7);
      expect(bias).to.equal(0);
    }
  });

  it('orders rows for euclidean by 2·x·q - |x|²: scale 2s, bias -|x|², the estimate within the steps of it', () => {
    const rows = new QuantizedRows(D, 'euclidean');
    rows.set(1, [3, 0, 0, 4, 0, 0, 0, 0]);
    expect(rowOf(rows, 1).scale).to.be.closeTo((2 * 4) / 7, 1e-6);
    expect(rowOf(rows, 1).bias).to.equal(-25);
    const u = mulberry32(8);
    const data = Array.from({ length: 200 }, () => Array.from({ length: D }, () => u() * 10 - 5));
    data.forEach((x, i) => rows.set(i + 10, x));
    const q = Array.from({ length: D }, () => u() * 10 - 5);
    const qq = q.reduce((sum, x) => sum + x * x, 0);
    for (const [i, x] of data.entries()) {
      const { codes, scale, bias } = rowOf(rows, i + 10);
      // The query exact here: the row's error alone, at most half a step (5/7 at most) per component.
      const estimate = scale * codes.reduce((sum, c, j) => sum + c * q[j]!, 0) + bias;
      const exact = -x.reduce((sum, xj, j) => sum + (xj - q[j]!) ** 2, 0) + qq;
      expect(estimate).to.be.closeTo(exact, 2 * D * 5 * (5 / 7 / 2) + 1e-9);
    }
  });

  it('sets bit j of a row when component j is above 0, in whole 64-bit words, with the mean magnitude', () => {
    expect([1, 64, 65, 384].map(signBytes)).to.deep.equal([8, 8, 16, 48]);
    const vector = Array.from({ length: 70 }, (_, j) => (j % 3 === 0 ? 1 : -1));
    const signs = new Uint8Array(2 + signBytes(70)).fill(0xff);
    const distance = signsInto(vector, signs, 1);
    expect(distance).to.equal(1);
    for (let j = 0; j < 128; j++)
      expect((signs[1 + (j >> 3)]! >> (j & 7)) & 1, `bit ${j}`).to.equal(j < 70 && j % 3 === 0 ? 1 : 0);
    expect([signs[0], signs[1 + signBytes(70)]], 'nothing written outside the row').to.deep.equal([0xff, 0xff]);
  });

  it('takes codes and signs of the offset from the centre given while it holds no row, the bias of the vector', () => {
    for (const metric of ['cosine', 'euclidean'] as const) {
      const rows = new QuantizedRows(4, metric);
      rows.centreOn([1, 1, 1, 1]);
      // Offset [2, -1, 1, 0]: codes in steps of 2/7, signs of components 0 and 2.
      rows.set(5, [3, 0, 2, 1]);
      const view = rows.view();
      const twice = metric === 'euclidean' ? 2 : 1;
      expect(view.signs[0]).to.equal(0b0101);
      expect(view.signScales[0]).to.be.closeTo(twice * ((2 + 1 + 1 + 0) / 4), 1e-7);
      expect(view.scales[0]).to.be.closeTo((twice * 2) / 7, 1e-7);
      expect([view.codes[0]! & 0x0f, view.codes[1]! & 0x0f].map((c) => c - 8)).to.deep.equal([7, -3]);
      expect(view.biases[0]).to.equal(metric === 'euclidean' ? -(9 + 0 + 4 + 1) : 0);
      expect(() => rows.centreOn([0, 0, 0, 0])).to.throw(/while they hold none/);
      rows.delete(5);
      rows.centreOn([0, 0, 0, 0]);
      expect(() => rows.centreOn([0, 0])).to.throw(/4 components/);
    }
  });

  it('keeps the scale and bias of a vector past |x|² = 3.4e38 finite, so its row stays live', () => {
    const rows = new QuantizedRows(D, 'euclidean');
    rows.set(1, [3e38, -3e38, 3e38, 0, 0, 0, 0, 0]);
    rows.set(2, [1, 0, 0, 0, 0, 0, 0, 0]);
    const { scale, bias } = rowOf(rows, 1);
    expect(bias, 'the lowest finite 32-bit float, not a free row').to.equal(-3.4028234663852886e38);
    expect(Number.isFinite(scale)).to.equal(true);
    expect(Number.isFinite(rows.view().signScales[rowOf(rows, 1).row]!)).to.equal(true);
    expect(rows.size).to.equal(2);
  });

  it('replaces a label in its row, frees a deleted one and reuses it', () => {
    const rows = new QuantizedRows(D, 'cosine');
    rows.set(1, [1, 0, 0, 0, 0, 0, 0, 0]);
    rows.set(2, [0, 1, 0, 0, 0, 0, 0, 0]);
    rows.set(1, [0, 0, 1, 0, 0, 0, 0, 0]);
    expect(rows.size).to.equal(2);
    expect(rows.view().labels.length, 'a replacement takes no new row').to.equal(2);
    expect(rowOf(rows, 1).codes).to.deep.equal([0, 0, 7, 0, 0, 0, 0, 0]);
    rows.delete(1);
    rows.delete(1);
    rows.delete(99);
    expect(rows.size).to.equal(1);
    expect(rows.has(1)).to.equal(false);
    expect(rows.view().biases[0], 'a free row is never a candidate').to.equal(-Infinity);
    rows.set(3, [0, 0, 0, 1, 0, 0, 0, 0]);
    expect(rows.view().labels.length, 'the freed row is taken again').to.equal(2);
    expect(rowOf(rows, 3).row).to.equal(0);
  });

  it('marks the rows of the labels a filter allows, a byte per row in use', () => {
    const rows = new QuantizedRows(D, 'cosine');
    for (let label = 10; label < 15; label++) rows.set(label, [1, 0, 0, 0, 0, 0, 0, label]);
    rows.delete(12);
    rows.set(20, [0, 1, 0, 0, 0, 0, 0, 0]);
    const labels = [...rows.view().labels];
    const allowed = rows.allowing([11, 20, 99]);
    expect(allowed.length).to.equal(labels.length);
    expect(labels.filter((_, r) => allowed[r] === 1).sort()).to.deep.equal([11, 20]);
  });

  it('grows past its first allocation with every row kept', () => {
    const rows = new QuantizedRows(D, 'dotproduct');
    const n = 2500;
    for (let i = 0; i < n; i++) rows.set(i, [i + 1, 0, 0, 0, 0, 0, 0, -(i + 1)]);
    const view = rows.view();
    expect(view.labels.length).to.equal(n);
    expect(view.codes.length).to.equal(n * rowBytes(D));
    expect(view.signs.length).to.equal(n * signBytes(D));
    expect(view.signs[1234 * signBytes(D)], 'first component above the centre, last below').to.equal(1);
    expect([...view.labels]).to.deep.equal(Array.from({ length: n }, (_, i) => i));
    expect(rowOf(rows, 1234).codes).to.deep.equal([7, 0, 0, 0, 0, 0, 0, -7]);
    expect(rowOf(rows, 1234).scale).to.be.closeTo(1235 / 7, 1e-3);
    expect(rows.bytes).to.be.at.least(n * (rowBytes(D) + signBytes(D) + 16));
  });
});
