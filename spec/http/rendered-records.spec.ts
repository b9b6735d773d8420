/**
 * The JSON of records read by id is remembered per stored record
 * (rendered-records.ts). A stored record is replaced on every write, so an
 * answer is never stale; the memory is bounded by entries and by size.
 */
import { expect } from 'chai';
import { RenderedRecords } from '../../lib/http/rendered-records.js';
import type { Fields } from '../../lib/engine/index.js';
import { TestServer } from '../helpers/test-server.js';

describe('http/rendered-records', () => {
  const counting = () => {
    let calls = 0;
    const render = (f: Fields) => { calls += 1; return JSON.stringify(f); };
    return { render, calls: () => calls };
  };

  it('renders a record once and gives the same text after', () => {
    const cache = new RenderedRecords();
    const r = counting();
    const rec = Object.freeze({ id: 'a', n: 1 });
    expect(cache.text(rec, r.render)).to.equal('{"id":"a","n":1}');
    expect(cache.text(rec, r.render)).to.equal('{"id":"a","n":1}');
    expect(r.calls()).to.equal(1);
    // A new version is a new object: rendered anew.
    expect(cache.text(Object.freeze({ id: 'a', n: 2 }), r.render)).to.equal('{"id":"a","n":2}');
    expect(r.calls()).to.equal(2);
  });

  it('forgets the oldest record past 16,384, and does not keep long answers', () => {
    const cache = new RenderedRecords();
    const r = counting();
    const records = Array.from({ length: 16_385 }, (_, i) => Object.freeze({ id: `r${i}` }));
    for (const rec of records) cache.text(rec, r.render);
    cache.text(records[16_384]!, r.render);
    expect(r.calls()).to.equal(16_385);
    cache.text(records[0]!, r.render);
    expect(r.calls(), 'the first was forgotten').to.equal(16_386);
    const long = Object.freeze({ id: 'long', text: 'x'.repeat(2000) });
    cache.text(long, r.render);
    cache.text(long, r.render);
    expect(r.calls(), 'a long answer is rendered each time').to.equal(16_388);
  });

  describe('over HTTP', () => {
    let t: TestServer;
    before(async () => { t = await TestServer.start(); });
    after(async () => { await t.stop(); });

    it('answers a read after an update, and after the typed-values setting changes, with the current rendering', async () => {
      const id = (await t.request('POST', '/api/insert/rendered', { name: 'first', n: 1 })).body.id as string;
      const read = async () => (await t.request('GET', `/api/find/rendered/${id}`)).body;
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'first' });
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'first' });
      expect((await t.request('PUT', `/api/update/rendered/${id}`, { name: 'second' })).status).to.equal(200);
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'second' });
      expect((await t.request('PUT', '/api/config', { use_typed_values: false })).status).to.equal(200);
      try {
        expect((await read()).name).to.equal('second');
      } finally {
        await t.request('PUT', '/api/config', { use_typed_values: true });
      }
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'second' });
    });
  });
});
