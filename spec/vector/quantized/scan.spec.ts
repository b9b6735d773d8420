/**
 * A graph's quantized scan (quantized/scan.ts): its fill makes the rows of
 * every live label, in slices, about the mean of their vectors, so that data
 * off the origin still splits by its signs; and a fill whose pauses let
 * inserts into empty rows leaves their centre as it was instead of failing.
 */
import { expect } from 'chai';
import { hnswlib, searchQuantized } from '../../../lib/vector/native/hnswlib-build.js';
import { QuantizedScan } from '../../../lib/vector/quantized/scan.js';
import { signBytes } from '../../../lib/vector/quantized/rows.js';
import { randomVectors } from '../../helpers/seeded-random.js';

const D = 64;

function graphOf(data: number[][]) {
  const graph = new hnswlib.HierarchicalNSW('l2', D);
  graph.initIndex({ maxElements: data.length, m: 8, efConstruction: 32, randomSeed: 1 });
  data.forEach((v, i) => graph.addPoint(v, i));
  return graph;
}

/** The share of set bits among the rows' signs. */
function setShare(scan: QuantizedScan): number {
  const { signs, labels } = scan.rows.view();
  let set = 0;
  for (const byte of signs) for (let b = byte; b > 0; b >>= 1) set += b & 1;
  return set / (labels.length * signBytes(D) * 8);
}

(searchQuantized ? describe : describe.skip)('vector/quantized/scan: filling a scan of a graph', () => {
  it('makes the rows of the live labels about their mean, so data off the origin splits by its signs', async () => {
    // Every component in [5, 6]: about the origin every sign would be set.
    const data = randomVectors(300, D, 5).map((v) => v.map((x) => 5.5 + x / 2));
    const scan = QuantizedScan.of(graphOf(data), D, 'euclidean')!;
    await scan.fill(
      data.map((_, i) => i),
      (label) => label !== 7,
      async () => undefined,
    );
    expect(scan.rows.size).to.equal(299);
    expect(scan.rows.has(7)).to.equal(false);
    expect(setShare(scan)).to.be.within(0.4, 0.6);
  });

  it('keeps the centre of rows an insert took during a pause, and fills the rest', async () => {
    const data = randomVectors(50, D, 6);
    const scan = QuantizedScan.of(graphOf(data), D, 'euclidean')!;
    let pauses = 0;
    const live = (label: number) => {
      // The first label takes longer than a slice, so the fill pauses after it.
      if (label === 0) for (const until = performance.now() + 5; performance.now() < until;);
      return true;
    };
    await scan.fill(
      data.map((_, i) => i),
      live,
      async () => {
        if (pauses++ === 0) scan.set(49);
      },
    );
    expect(pauses).to.be.at.least(1);
    expect(scan.rows.size).to.equal(50);
  });
});
