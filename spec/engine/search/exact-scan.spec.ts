/**
 * The exact vector scan a search falls back to while an index is built
 * (exact-scan.ts), whole and in slices: the same hits, and the sliced one
 * lets the event loop turn during a scan that takes longer than a slice.
 */
import { expect } from 'chai';
import { exactVectorScan, exactVectorScanInSlices } from '../../../lib/engine/search/exact-scan.js';
import type { RecordEntry } from '../../../lib/engine/write/state.js';
import { gaussian, mulberry32 } from '../../helpers/seeded-random.js';
import { countTurns } from '../../helpers/until.js';

function records(count: number, dims: number, seed: number): Map<string, RecordEntry> {
  const g = gaussian(mulberry32(seed));
  const out = new Map<string, RecordEntry>();
  for (let i = 0; i < count; i++)
    out.set(`r${i}`, { fields: { id: `r${i}`, v: Array.from({ length: dims }, g), n: i }, version: 1 });
  return out;
}

describe('engine/search exact vector scan', () => {
  it('finds the same neighbours whole and in slices, with and without a filter', async () => {
    const rows = records(3000, 16, 1);
    const g = gaussian(mulberry32(2));
    for (const metric of ['cosine', 'euclidean', 'dotproduct'] as const) {
      for (let q = 0; q < 5; q++) {
        const query = Array.from({ length: 16 }, g);
        const even = (id: string) => Number(id.slice(1)) % 2 === 0;
        expect(await exactVectorScanInSlices(rows, { field: 'v', metric, query, neighbours: 10 })).to.deep.equal(
          exactVectorScan(rows, { field: 'v', metric, query, neighbours: 10 }),
        );
        expect(
          await exactVectorScanInSlices(rows, { field: 'v', metric, query, neighbours: 10, allowed: even }),
        ).to.deep.equal(exactVectorScan(rows, { field: 'v', metric, query, neighbours: 10, allowed: even }));
      }
    }
  });

  it('lets the event loop turn during a long scan', async function () {
    this.timeout(30_000);
    // Enough vectors that one scan takes several 4 ms slices on any machine these specs run on.
    const rows = records(60_000, 96, 3);
    const query = Array.from({ length: 96 }, gaussian(mulberry32(4)));
    const stopCounting = countTurns();
    const started = performance.now();
    const hits = await exactVectorScanInSlices(rows, { field: 'v', metric: 'cosine', query, neighbours: 5 });
    const ms = performance.now() - started;
    const turns = stopCounting();
    expect(hits).to.have.length(5);
    expect(turns, `turns during a ${ms.toFixed(0)} ms scan`).to.be.above(1);
  });
});
