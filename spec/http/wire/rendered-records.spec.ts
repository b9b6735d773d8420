/**
 * The JSON of records read by id is remembered per stored record
 * (rendered-records.ts). A stored record is replaced on every write, so an
 * answer is never stale; the memory is bounded by entries and by size.
 */
import { expect } from 'chai';
import { RenderedRecords } from '../../../lib/http/wire/rendered-records.js';
import type { Fields } from '../../../lib/engine/index.js';
import { TestServer } from '../../helpers/test-server.js';

describe('http/rendered-records', () => {
  const counting = () => {
    let calls = 0;
    const cache = new RenderedRecords((f: Fields) => {
      calls += 1;
      return JSON.stringify(f);
    });
    return { cache, calls: () => calls };
  };

  it('renders a record once and gives the same text after', () => {
    const r = counting();
    const cache = r.cache;
    const rec = Object.freeze({ id: 'a', n: 1 });
    expect(cache.answer(rec)).to.equal('{"id":"a","n":1}');
    expect(cache.answer(rec)).to.equal('{"id":"a","n":1}');
    expect(r.calls()).to.equal(1);
    // A new version is a new object: rendered anew.
    expect(cache.answer(Object.freeze({ id: 'a', n: 2 }))).to.equal('{"id":"a","n":2}');
    expect(r.calls()).to.equal(2);
  });

  it('forgets the oldest record past 16,384, and does not keep long answers', () => {
    const r = counting();
    const cache = r.cache;
    const records = Array.from({ length: 16_385 }, (_, i) => Object.freeze({ id: `r${i}` }));
    for (const rec of records) cache.answer(rec);
    cache.answer(records[16_384]!);
    expect(r.calls()).to.equal(16_385);
    cache.answer(records[0]!);
    expect(r.calls(), 'the first was forgotten').to.equal(16_386);
    const long = Object.freeze({ id: 'long', text: 'x'.repeat(2000) });
    cache.answer(long);
    cache.answer(long);
    expect(r.calls(), 'a long answer is rendered each time').to.equal(16_388);
  });

  describe('over HTTP', () => {
    let t: TestServer;
    before(async () => {
      t = await TestServer.start();
    });
    after(async () => {
      await t.stop();
    });

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

    it('answers MessagePack reads the same way', async () => {
      const id = (await t.request('POST', '/api/insert/rendered', { name: 'first' })).body.id as string;
      const read = async () =>
        (await t.request('GET', `/api/find/rendered/${id}`, undefined, { format: 'msgpack' })).body;
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'first' });
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'first' });
      await t.request('PUT', `/api/update/rendered/${id}`, { name: 'second' });
      expect((await read()).name).to.deep.equal({ type: 'String', value: 'second' });
      expect((await read()).id).to.equal(id);
    });
  });
});
