/**
 * GET /api/health while a vector index catches up on a bulk load: the graph
 * is built in the HNSW worker, and health says so (building, with the share
 * done) until the graph holds every vector, then ready. The readiness probe
 * counts it as building meanwhile, not failed. Then the graph's calibrated
 * query-time ef appears, with the way its searches are answered.
 */
import { expect } from 'chai';
import { EF_LADDER } from '../../lib/vector/index.js';
import { TestServer } from '../helpers/test-server.js';
import { randomVectors } from '../helpers/seeded-random.js';

interface IndexView {
  field: string;
  state: string;
  indexed: number;
  total: number;
  progress: number;
  ef_search?: number;
  vector_search?: string;
}

describe('search index progress in GET /api/health', function () {
  this.timeout(60_000);

  it('shows a bulk-loaded HNSW index building with rising progress until it holds every vector, then ready', async () => {
    const t = await TestServer.start({ memory: true });
    try {
      await t.request('POST', '/api/collections/vecs', {
        fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
      });
      // 64 dimensions: about 0.1 ms per insert in the worker, so the load is answered long before the graph is built.
      const data = randomVectors(4000, 64, 41);
      const loaded = await t.request('POST', '/api/batch/insert/vecs', {
        inserts: data.map((embedding) => ({ data: { embedding } })),
      });
      expect(loaded.status).to.equal(201);
      const index = async () =>
        ((await t.request('GET', '/api/health')).body.indexes as IndexView[]).find((x) => x.field === 'embedding')!;
      const first = await index();
      expect(first).to.include({ state: 'building', total: 4000 });
      expect(first.progress).to.be.at.least(0).and.below(1);
      expect(first.indexed).to.be.below(4000);
      const probe = await t.request('GET', '/api/health/ready', undefined, { token: null });
      expect(probe.status).to.equal(200);
      expect(probe.body.checks.search_indexes).to.equal('building');
      const seen = [first.progress];
      let last = first;
      while (last.state !== 'ready') {
        await new Promise((r) => setTimeout(r, 20));
        last = await index();
        seen.push(last.progress);
      }
      expect(seen, 'progress never goes back').to.deep.equal([...seen].sort((a, b) => a - b));
      expect(last).to.include({ state: 'ready', progress: 1 });
      // Ready once the backlog is small; the last changes follow within moments.
      while ((await index()).indexed < 4000) await new Promise((r) => setTimeout(r, 20));
      const ready = await t.request('GET', '/api/health/ready', undefined, { token: null });
      expect(ready.body.checks.search_indexes).to.equal('ready');
      // Once its batches pause, the worker measures the ef the data needs, and health shows it.
      let efSearch: number | undefined;
      while ((efSearch = (await index()).ef_search) === undefined) await new Promise((r) => setTimeout(r, 50));
      expect(EF_LADDER).to.include(efSearch);
      expect(['graph', 'quantized_scan'], 'how its searches are answered').to.include((await index()).vector_search);
    } finally {
      await t.stop();
    }
  });
});
