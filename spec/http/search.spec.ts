import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

/** mulberry32: a seeded PRNG so vectors are the same every run. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DOCS = [
  {
    id: 'd1',
    title: 'Running shoes for marathon training',
    body: 'Lightweight shoes for runners',
    category: 'sport',
    embedding: [1, 0, 0, 0],
  },
  {
    id: 'd2',
    title: 'Cooking pasta at home',
    body: 'Simple Italian recipes',
    category: 'food',
    embedding: [0, 1, 0, 0],
  },
  {
    id: 'd3',
    title: 'Trail runs in the mountains',
    body: 'Where runners go on weekends',
    category: 'sport',
    embedding: [0.9, 0.1, 0, 0],
  },
  {
    id: 'd4',
    title: 'Marathon nutrition',
    body: 'What to eat before you run a marathon',
    category: 'food',
    embedding: [0.5, 0.5, 0, 0],
  },
];

describe('search (POST /api/search/{c})', function () {
  this.timeout(60_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
    await t.request('POST', '/api/batch/insert/docs', {
      inserts: DOCS.map((d, i) => ({
        data: { ...d, embedding: i % 2 === 0 ? { type: 'Vector', value: d.embedding } : d.embedding },
      })),
    });
  });
  afterEach(async () => {
    await t.stop();
  });

  const ids = (r: { body: { results: Array<{ record: { id: string } }> } }) => r.body.results.map((x) => x.record.id);

  it('ranks text matches with BM25 and stemming, reporting matched fields and execution_time_ms', async () => {
    const r = await t.request('POST', '/api/search/docs', { query: 'marathon running', language: 'english' });
    expect(r.status).to.equal(200);
    expect(r.body).to.have.keys('results', 'total', 'execution_time_ms', 'took_ms');
    // d4 says "marathon" twice and "run" once; d1 says "marathon" and "running" once each.
    expect(ids(r).slice(0, 2)).to.deep.equal(['d4', 'd1']);
    expect(r.body.results[1].matched_fields).to.include('title');
    expect(r.body.results[1].record.title).to.deep.equal({ type: 'String', value: DOCS[0]!.title });
    expect(r.body.total).to.equal(r.body.results.length);
  });

  it('applies fuzzy matching, field weights, case sensitivity and min_score', async () => {
    expect(
      ids(await t.request('POST', '/api/search/docs', { query: 'marathn', fuzzy: true, max_edit_distance: 1 })),
    ).to.include('d1');
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'marathn' }))).to.deep.equal([]);
    const byBody = await t.request('POST', '/api/search/docs', { query: 'runners', fields: 'body' });
    expect(ids(byBody).sort()).to.deep.equal(['d1', 'd3']);
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'Marathon', case_sensitive: true }))).to.deep.equal(
      ['d4'],
    );
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'MARATHON', case_sensitive: true }))).to.deep.equal(
      [],
    );
    const all = await t.request('POST', '/api/search/docs', { query: 'marathon' });
    const top = all.body.results[0].score;
    expect(
      ids(await t.request('POST', '/api/search/docs', { query: 'marathon', min_score: top + 0.001 })),
    ).to.deep.equal([]);
    const weighted = await t.request('POST', '/api/search/docs', { query: 'marathon', weights: 'title:0,body:1' });
    expect(ids(weighted)).to.deep.equal(['d4']);
  });

  it('finds nearest vectors for fields stored as Vector or as bare arrays, with k and threshold', async () => {
    const r = await t.request('POST', '/api/search/docs', {
      query: '',
      vector: [1, 0, 0, 0],
      vector_field: 'embedding',
      vector_k: 2,
    });
    expect(ids(r)).to.deep.equal(['d1', 'd3']);
    expect(r.body.results[0].score).to.be.closeTo(1, 1e-6);
    expect(r.body.results[0].matched_fields).to.deep.equal([]);
    const th = await t.request('POST', '/api/search/docs', { query: '', vector: [1, 0, 0, 0], vector_threshold: 0.9 });
    expect(ids(th)).to.deep.equal(['d1', 'd3']);
    const eu = await t.request('POST', '/api/search/docs', {
      query: '',
      vector: [0, 1, 0, 0],
      vector_metric: 'euclidean',
      vector_k: 1,
    });
    expect(ids(eu)).to.deep.equal(['d2']);
    expect((await t.request('POST', '/api/search/docs', { query: '', vector: [1, 0] })).status).to.equal(400);
  });

  it('takes vector components only as 32-bit floats: a query beyond them is a 400, a record beyond them unindexed', async () => {
    const beyond = await t.request('POST', '/api/search/docs', { query: '', vector: [1e39, 0, 0, 0] });
    expect(beyond.status).to.equal(400);
    expect(JSON.stringify(beyond.body)).to.include("beyond a 32-bit float's range");
    expect((await t.request('POST', '/api/search/docs', { query: '', vector: [3e38, 0, 0, 0] })).status).to.equal(200);
    await t.request('POST', '/api/insert/docs', { id: 'huge', embedding: [1e39, 0, 0, 0] });
    for (const vector_k of [1, 10]) {
      const r = await t.request('POST', '/api/search/docs', { query: '', vector: [1, 0, 0, 0], vector_k });
      expect(ids(r), 'Infinity once stored: no vector to rank').to.not.include('huge');
    }
    expect(
      ids(await t.request('POST', '/api/search/docs', { query: '', vector: [1, 0, 0, 0], vector_k: 1 })),
    ).to.deep.equal(['d1']);
  });

  it('blends text and vector scores in hybrid mode and applies filters before ranking', async () => {
    const h = await t.request('POST', '/api/search/docs', {
      query: 'shoes',
      vector: [1, 0, 0, 0],
      text_weight: 0.7,
      vector_weight: 0.8,
    });
    expect(ids(h).slice(0, 2)).to.deep.equal(['d1', 'd3']);
    expect(h.body.results[1].matched_fields).to.deep.equal([]);
    expect(h.body.results[0].score).to.be.greaterThan(1);
    const f = await t.request('POST', '/api/search/docs', {
      query: 'marathon',
      filters: { type: 'Condition', content: { field: 'category', operator: 'Eq', value: 'food' } },
    });
    expect(ids(f)).to.deep.equal(['d4']);
    const p = await t.request('POST', '/api/search/docs', { query: 'pasta', select_fields: ['title'] });
    expect(Object.keys(p.body.results[0].record).sort()).to.deep.equal(['id', 'title']);
  });

  it('follows inserts, updates, deletes and commits, and a transaction searches its own writes', async () => {
    await t.request('POST', '/api/insert/docs', { id: 'd5', title: 'Zebra crossing guide', embedding: [0, 0, 1, 0] });
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'zebra' }))).to.deep.equal(['d5']);
    await t.request('PUT', '/api/update/docs/d5', { title: 'Giraffe facts' });
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'zebra' }))).to.deep.equal([]);
    expect(
      ids(await t.request('POST', '/api/search/docs', { query: '', vector: [0, 0, 1, 0], vector_k: 1 })),
    ).to.deep.equal(['d5']);
    await t.request('DELETE', '/api/delete/docs/d5');
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'giraffe' }))).to.deep.equal([]);
    const tx = (await t.request('POST', '/api/transactions', {})).body.transaction_id;
    await t.request('POST', `/api/insert/docs?transaction_id=${tx}`, {
      id: 'd6',
      title: 'Okapi sightings',
      embedding: [0, 0, 0, 1],
    });
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'okapi' }))).to.deep.equal([]);
    expect(ids(await t.request('POST', `/api/search/docs?transaction_id=${tx}`, { query: 'okapi' }))).to.deep.equal([
      'd6',
    ]);
    expect(
      ids(
        await t.request('POST', `/api/search/docs?transaction_id=${tx}`, {
          query: '',
          vector: [0, 0, 0, 1],
          vector_k: 1,
        }),
      ),
    ).to.deep.equal(['d6']);
    await t.request('POST', `/api/transactions/${tx}/commit`);
    expect(ids(await t.request('POST', '/api/search/docs', { query: 'okapi' }))).to.deep.equal(['d6']);
  });

  it('reaches recall@10 of at least 0.95 against brute force on seeded data', async () => {
    const random = rng(42);
    const dims = 32;
    const vecs = Array.from({ length: 2000 }, () => Array.from({ length: dims }, () => random() * 2 - 1));
    await t.request('POST', '/api/batch/insert/vecs', {
      inserts: vecs.map((v, i) => ({ data: { id: `v${i}`, embedding: { type: 'Vector', value: v } } })),
    });
    const cos = (a: number[], b: number[]) => {
      let d = 0,
        na = 0,
        nb = 0;
      for (let i = 0; i < a.length; i++) {
        d += a[i]! * b[i]!;
        na += a[i]! ** 2;
        nb += b[i]! ** 2;
      }
      return d / Math.sqrt(na * nb);
    };
    let hit = 0;
    const Q = 30;
    for (let q = 0; q < Q; q++) {
      const query = Array.from({ length: dims }, () => random() * 2 - 1);
      const truth = vecs
        .map((v, i) => [i, cos(v, query)] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([i]) => `v${i}`);
      const got = ids(await t.request('POST', '/api/search/vecs', { query: '', vector: query, vector_k: 10 }));
      hit += got.filter((id) => truth.includes(id)).length;
    }
    expect(hit / (Q * 10)).to.be.at.least(0.95);
  });

  it('rejects bad requests with 400', async () => {
    for (const body of [
      {},
      { query: 1 },
      { query: '' },
      { query: 'x', nope: 1 },
      { query: 'x', vector: 'abc' },
      { query: 'x', vector_metric: 'manhattan' },
      { query: 'x', max_edit_distance: 9 },
      { query: 'x', filters: { field: 'a', operator: 'Regex', value: 1 } },
      { query: 'x', weights: 'title:-1' },
    ]) {
      expect((await t.request('POST', '/api/search/docs', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });
});
