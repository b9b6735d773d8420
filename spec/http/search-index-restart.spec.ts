/**
 * The persisted HNSW graph across a real process restart: a child server
 * writes vectors and a snapshot, is killed with SIGKILL, and the next one
 * loads the graph (health: stale, then ready; never building) while exact
 * scans answer meanwhile.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';
import { BruteForceIndex } from '../../lib/vector/index.js';
import { childToken, killChild, startChild, type ChildServer } from '../helpers/child-server.js';
import { gaussian, mulberry32 } from '../helpers/seeded-random.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const DIMS = 32,
  N = 600;

interface IndexView {
  collection: string;
  kind: string;
  field: string;
  state: string;
  indexed: number;
  total: number;
  progress: number;
  note?: string;
}

describe('search indexes across a real process restart', function () {
  this.timeout(120_000);
  let dir: string;
  let child: ChildServer | undefined;

  beforeEach(() => {
    dir = tempDir('eddydb-index-restart-');
  });
  afterEach(async () => {
    if (child) await killChild(child);
    child = undefined;
    removeDir(dir);
  });

  async function call(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }> {
    const r = await fetch(child!.url + path, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  }

  it('loads the persisted graph after kill -9 without a rebuild, answering searches from the first request', async () => {
    const g = gaussian(mulberry32(5));
    const vectors = Array.from({ length: N }, () => Array.from({ length: DIMS }, g));
    child = await startChild(dir);
    let token = await childToken(child.url);
    const schema = {
      fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
    };
    expect((await call('POST', '/api/collections/vecs', token, schema)).status).to.equal(201);
    const inserts = vectors.map((v, i) => ({ data: { id: `v${i}`, embedding: { type: 'Vector', value: v } } }));
    expect((await call('POST', '/api/batch/insert/vecs', token, { inserts })).status).to.be.oneOf([200, 201]);
    expect((await call('POST', '/api/admin/snapshot', token)).status).to.equal(200);
    await killChild(child);

    child = await startChild(dir);
    token = await childToken(child.url);
    const health = async () =>
      ((await call('GET', '/api/health', token)).body.indexes as IndexView[]).find((x) => x.field === 'embedding')!;
    const first = await health();
    expect(first).to.include({ collection: 'vecs', kind: 'vector', total: N });
    expect(first.state).to.be.oneOf(['stale', 'ready']);
    expect(first.note).to.equal(undefined);

    const exact = new BruteForceIndex({ dimensions: DIMS, metric: 'cosine' });
    vectors.forEach((v, i) => exact.add(`v${i}`, v));
    const query = vectors[17]!.map((x) => x + 0.01);
    const r = await call('POST', '/api/search/vecs', token, { vector: query, vector_k: 5 });
    expect(r.status).to.equal(200);
    expect(r.body.results.map((h: { record: { id: string } }) => h.record.id)).to.deep.equal(
      exact.search(query, 5).map((h) => h.id),
    );

    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const h = await health();
      seen.add(h.state);
      if (h.state === 'ready') break;
      await new Promise((res) => setTimeout(res, 25));
    }
    expect([...seen]).to.not.include('building');
    const ready = await health();
    expect(ready).to.include({ state: 'ready', indexed: N, total: N, progress: 1 });
    expect(child.output()).to.not.match(/search index/);
  });

  it('lists search indexes in GET /api/health beside the existing members, and none on a fresh server', async () => {
    const t = await TestServer.start();
    try {
      const fresh = await t.request('GET', '/api/health');
      expect(fresh.body).to.include.keys('status', 'storage', 'recovery', 'indexes');
      expect(fresh.body.indexes).to.deep.equal([]);
      await t.request('POST', '/api/batch/insert/docs', { inserts: [{ data: { title: 'hello world', v: [1, 0] } }] });
      await t.request('POST', '/api/search/docs', { query: 'hello' });
      await t.request('POST', '/api/search/docs', { vector: [1, 0], vector_field: 'v' });
      const indexes = (await t.request('GET', '/api/health')).body.indexes as IndexView[];
      expect(indexes.map((x) => `${x.collection}/${x.kind}/${x.field}`).sort()).to.deep.equal([
        'docs/text/*',
        'docs/vector/v',
      ]);
      for (const x of indexes)
        expect(x).to.have.keys('collection', 'kind', 'field', 'state', 'indexed', 'total', 'progress');
    } finally {
      await t.stop();
    }
  });
});
