import { expect } from 'chai';
import { BruteForceIndex, EF_LADDER, HnswIndex, RECALL_TARGET, type Metric } from '../../lib/vector/index.js';
import { scanServes } from '../../lib/vector/hnsw-calibration.js';
import { searchQuantized } from '../../lib/vector/native/hnswlib-build.js';
import { gaussian, mulberry32 } from '../helpers/seeded-random.js';

const DIMS = 48;
const N = 3000;

/** Vectors around 30 centroids, or uniform in [-1, 1]. */
function vectors(kind: 'clustered' | 'uniform', count: number, seed: number): number[][] {
  const u = mulberry32(seed);
  if (kind === 'uniform') return Array.from({ length: count }, () => Array.from({ length: DIMS }, () => u() * 2 - 1));
  const g0 = gaussian(mulberry32(5));
  const centroids = Array.from({ length: 30 }, () => Array.from({ length: DIMS }, () => 3 * g0()));
  const g = gaussian(u);
  return Array.from({ length: count }, () => centroids[Math.floor(u() * 30)]!.map((x) => x + g()));
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('vector/hnsw calibration of the query-time ef', function () {
  this.timeout(60_000);

  async function calibrated(kind: 'clustered' | 'uniform') {
    const data = vectors(kind, N, 1);
    const index = new HnswIndex({ dimensions: DIMS, metric: 'cosine', initialCapacity: N });
    data.forEach((v, i) => index.add(`r${i}`, v));
    const exact = new BruteForceIndex({ dimensions: DIMS, metric: 'cosine' });
    data.forEach((v, i) => exact.add(`r${i}`, v));
    const before = index.efFor(18);
    let pauses = 0;
    const result = await index.calibrate(async () => {
      pauses++;
      await turn();
    });
    // Fresh queries from the same distribution: recall@10 of an engine-like search (18 asked, 10 kept).
    const queries = vectors(kind, 40, 2);
    let found = 0;
    for (const q of queries) {
      const truth = new Set(exact.search(q, 10).map((h) => h.id));
      found += index
        .search(q, 18)
        .slice(0, 10)
        .filter((h) => truth.has(h.id)).length;
    }
    expect(result, 'nothing changed the graph meanwhile').to.not.equal(undefined);
    return { ...result!, before, after: index.efFor(18), pauses, recall: found / (queries.length * 10) };
  }

  it('chooses the smallest ef reaching the recall target on the data, and uses it from then on', async () => {
    const clustered = await calibrated('clustered');
    expect(clustered.before, 'the default until calibrated').to.equal(128);
    expect(clustered.after).to.equal(clustered.ef);
    expect(clustered.ef).to.be.below(128);
    expect(clustered.ef).to.be.at.least(EF_LADDER[0]);
    expect(clustered.recall, 'fresh queries at the calibrated ef').to.be.at.least(0.95);
    expect(clustered.pauses, 'yields between chunks of work').to.be.above(5);
  });

  it('reaches recall@10 0.95 with fresh queries on uniform noise too, looking at least as far as on clustered data', async () => {
    const clustered = await calibrated('clustered');
    const uniform = await calibrated('uniform');
    expect(uniform.ef).to.be.at.least(clustered.ef);
    expect(uniform.ef, 'under the ladder top, where the target is reachable').to.be.below(EF_LADDER.at(-1)!);
    expect(uniform.recall).to.be.at.least(0.95);
    expect(RECALL_TARGET).to.be.above(0.95);
  });

  it('scales the calibrated ef by the neighbours a search asks, and never goes under them', async () => {
    const index = new HnswIndex({ dimensions: DIMS, metric: 'cosine' });
    vectors('clustered', 1200, 3).forEach((v, i) => index.add(`r${i}`, v));
    const { ef } = (await index.calibrate(turn))!;
    expect(index.efFor(36)).to.equal(Math.max(36, Math.ceil((ef * 36) / 18)));
    expect(index.efFor(500)).to.be.at.least(500);
    const fixed = new HnswIndex({ dimensions: DIMS, metric: 'cosine', efSearch: 40 });
    vectors('clustered', 1200, 3).forEach((v, i) => fixed.add(`r${i}`, v));
    await fixed.calibrate(turn);
    expect(fixed.efFor(18), 'a fixed efSearch wins').to.equal(40);
  });

  it('discards a calibration the graph changed under, keeping the ef it had', async () => {
    const index = new HnswIndex({ dimensions: DIMS, metric: 'cosine' });
    const data = vectors('clustered', 1400, 4);
    data.slice(0, 1200).forEach((v, i) => index.add(`r${i}`, v));
    let added = false;
    const result = await index.calibrate(async () => {
      // Vectors arriving while the exact neighbours are being found would all count as misses.
      if (!added) data.slice(1200).forEach((v, i) => index.add(`late${i}`, v));
      added = true;
      await turn();
    });
    expect(result).to.equal(undefined);
    expect(index.efFor(18), 'still the default').to.equal(128);
    const again = await index.calibrate(turn);
    expect(again!.ef).to.be.below(128);
    expect(index.efFor(18)).to.equal(again!.ef);
  });

  it('lets a quantized scan serve only when it reaches the recall the graph does in less time', () => {
    const graph = { ef: 4096, recall: 0.98, searchMs: 8 };
    expect(scanServes(graph), 'not measured').to.equal(false);
    expect(scanServes({ ...graph, scan: { candidates: 36, recall: 1, searchMs: 1 } })).to.equal(true);
    expect(scanServes({ ...graph, scan: { candidates: 36, recall: 1, searchMs: 9 } }), 'slower').to.equal(false);
    expect(scanServes({ ...graph, scan: { candidates: 576, recall: 0.9, searchMs: 1 } }), 'misses').to.equal(false);
    const reached = { ef: 512, recall: 0.995, searchMs: 2 };
    expect(scanServes({ ...reached, scan: { candidates: 72, recall: 0.99, searchMs: 1 } }), 'the target').to.equal(
      true,
    );
  });

  // Noise in [-1, 1], and in [0, 1]: off the origin, where signs about the origin would all be set.
  for (const [metric, low] of [
    ['cosine', -1],
    ['euclidean', -1],
    ['cosine', 0],
  ] as Array<[Metric, number]>) {
    (searchQuantized ? it : it.skip)(
      `answers ${metric} searches of uniform noise in [${low}, 1] by a quantized scan where it is faster, through ` +
        'later changes',
      async () => {
        const dims = 384;
        const u = mulberry32(17);
        const uniform = (count: number) =>
          Array.from({ length: count }, () => Array.from({ length: dims }, () => low + u() * (1 - low)));
        const data = uniform(2500);
        const index = new HnswIndex({ dimensions: dims, metric, initialCapacity: 4096 });
        const exact = new BruteForceIndex({ dimensions: dims, metric });
        data.forEach((v, i) => {
          index.add(`r${i}`, v);
          exact.add(`r${i}`, v);
        });
        const result = (await index.calibrate(turn))!;
        expect(result.scan, 'a graph slower than the scan could be is measured against it').to.not.equal(undefined);
        expect(result.scan!.recall).to.be.at.least(RECALL_TARGET);
        expect(index.scanning, `the scan took ${result.scan!.searchMs} ms, the graph ${result.searchMs}`).to.equal(
          true,
        );
        expect(index.efFor(18), 'the ef stays calibrated for filtered searches').to.equal(result.ef);

        const recallOf = (queries: number[][]) => {
          let found = 0;
          for (const q of queries) {
            const best = new Map(exact.search(q, 18).map((h) => [h.id, h.score]));
            const truth = new Set([...best.keys()].slice(0, 10));
            const got = index.search(q, 18).slice(0, 10);
            // Re-ranked exactly: the scores of an exact scan (hnswlib keeps float32 vectors).
            for (const h of got) if (best.has(h.id)) expect(h.score).to.be.closeTo(best.get(h.id)!, 1e-4);
            found += got.filter((h) => truth.has(h.id)).length;
          }
          return found / (queries.length * 10);
        };
        expect(recallOf(uniform(30)), 'fresh queries').to.be.at.least(0.95);

        // Inserts, replacements and removals reach the codes.
        const added = uniform(40);
        added.forEach((v, i) => {
          index.add(`new${i}`, v);
          exact.add(`new${i}`, v);
        });
        index.add(
          'r0',
          added[0]!.map((x) => -x),
        );
        exact.add(
          'r0',
          added[0]!.map((x) => -x),
        );
        for (let i = 1; i <= 40; i++) {
          index.remove(`r${i}`);
          exact.remove(`r${i}`);
        }
        for (const [i, v] of added.entries()) expect(index.search(v, 1)[0]!.id).to.equal(`new${i}`);
        expect(
          index.search(
            added[0]!.map((x) => -x),
            1,
          )[0]!.id,
          'the replaced vector',
        ).to.equal('r0');
        for (let i = 1; i <= 40; i++) expect(index.search(data[i]!, 5).map((h) => h.id)).to.not.include(`r${i}`);
        expect(recallOf(uniform(30)), 'after the changes').to.be.at.least(0.95);

        // A filtered search scans the rows the filter lets through.
        const even = (id: string) => /^r\d*[02468]$/.test(id);
        let found = 0;
        for (const q of uniform(20)) {
          const got = index.search(q, 10, even);
          expect(got.every((h) => even(h.id))).to.equal(true);
          const truth = new Set(exact.search(q, 10, even).map((h) => h.id));
          found += got.filter((h) => truth.has(h.id)).length;
        }
        expect(found / 200, 'filtered').to.be.at.least(0.95);
      },
    );
  }
});
