/**
 * End-to-end specs of the record routes (protocol.md 2.3): insert, find by
 * id, merge update, update actions and sequences, delete, distinct and
 * count, over real HTTP in JSON and MessagePack, plus the bad-input rules:
 * every malformed request is a 4xx with `{error}` and changes nothing.
 */
import { expect } from 'chai';
import { encode as mpEncode } from '@msgpack/msgpack';
import { bare, TestServer, type Reply } from '../helpers/test-server.js';

const FORMATS = ['json', 'msgpack'] as const;
type Format = (typeof FORMATS)[number];

let counter = 0;
const fresh = (prefix = 'recs'): string => `${prefix}_${++counter}`;

function expectError(r: Reply, status: number, message?: string | RegExp): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.body, r.text).to.be.an('object');
  expect(r.body.error, r.text).to.be.a('string');
  if (typeof message === 'string') expect(r.body.error).to.equal(message);
  else if (message) expect(r.body.error).to.match(message);
}

function expectFormat(r: Reply, format: Format): void {
  const type = r.headers.get('content-type') ?? '';
  expect(type).to.include(format === 'msgpack' ? 'application/msgpack' : 'application/json');
}

describe('http record routes', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  async function insert(c: string, body: Record<string, unknown>, format: Format = 'json'): Promise<string> {
    const r = await t.request('POST', `/api/insert/${c}`, body, { format });
    expect(r.status, r.text).to.equal(201);
    return r.body.id;
  }

  async function get(c: string, id: string): Promise<Reply> {
    return t.request('GET', `/api/find/${c}/${encodeURIComponent(id)}`);
  }

  async function count(c: string): Promise<number> {
    const r = await t.request('GET', `/api/${c}/count`);
    expect(r.status, r.text).to.equal(200);
    return r.body.count;
  }

  describe('POST /api/insert/{c}', () => {
    it('answers 201 with only the new id and creates the collection implicitly', async () => {
      const c = fresh();
      const r = await t.request('POST', `/api/insert/${c}`, { name: 'Ada' });
      expect(r.status).to.equal(201);
      expect(Object.keys(r.body)).to.deep.equal(['id']);
      const list = await t.request('GET', '/api/collections');
      expect(list.body.collections).to.include(c);
      expect(await count(c)).to.equal(1);
    });

    it('generates distinct, 22-character, URL-safe ids that look random', async () => {
      const c = fresh();
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(await insert(c, { i }));
      expect(new Set(ids).size).to.equal(ids.length);
      for (const id of ids) expect(id).to.match(/^[A-Za-z0-9_-]{22}$/);
      for (let i = 1; i < ids.length; i++) {
        let same = 0;
        for (let k = 0; k < 22; k++) if (ids[i]![k] === ids[i - 1]![k]) same++;
        expect(same, `${ids[i - 1]} vs ${ids[i]}`).to.be.below(8);
      }
      const sorted = [...ids].sort();
      expect(sorted).to.not.deep.equal(ids);
    });

    it('honours a client-supplied id', async () => {
      const c = fresh();
      const id = await insert(c, { id: 'custom-id', name: 'x' });
      expect(id).to.equal('custom-id');
      const r = await get(c, 'custom-id');
      expect(r.status).to.equal(200);
      expect(r.body.id).to.equal('custom-id');
      expect(r.body).to.not.have.property('ttl');
    });

    it('accepts an id sent as a typed wrapper', async () => {
      const c = fresh();
      expect(await insert(c, { id: { type: 'String', value: 'wrapped' }, n: 1 })).to.equal('wrapped');
      expect((await get(c, 'wrapped')).status).to.equal(200);
    });

    it('answers 409 on a duplicate id and keeps the original record', async () => {
      const c = fresh();
      await insert(c, { id: 'dup', v: 1 });
      const r = await t.request('POST', `/api/insert/${c}`, { id: 'dup', v: 2 });
      expectError(r, 409, /already exists/);
      expect(bare((await get(c, 'dup')).body).v).to.equal(1);
      expect(await count(c)).to.equal(1);
    });
  });

  describe('concurrent writes', () => {
    it('lets exactly one of several concurrent inserts of the same id win', async () => {
      const c = fresh();
      const replies = await Promise.all(
        [1, 2, 3, 4, 5].map((v) => t.request('POST', `/api/insert/${c}`, { id: 'same', v })),
      );
      expect(replies.map((r) => r.status).sort()).to.deep.equal([201, 409, 409, 409, 409]);
      expect(await count(c)).to.equal(1);
    });

    it('applies concurrent increments without losing any', async () => {
      const c = fresh();
      const id = await insert(c, { n: 0 });
      const replies = await Promise.all(
        Array.from({ length: 25 }, () =>
          t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n', value: 1 }),
        ),
      );
      for (const r of replies) expect(r.status).to.equal(200);
      expect(bare((await get(c, id)).body).n).to.equal(25);
    });
  });

  describe('GET /api/find/{c}/{id}', () => {
    it('returns typed values by default with a bare id', async () => {
      const c = fresh();
      const id = await insert(c, {
        name: 'Ada',
        age: 36,
        score: 9.5,
        active: true,
        tags: ['a', 'b'],
        address: { city: 'London' },
        born: '1815-12-10T00:00:00Z',
        nothing: null,
        price: { type: 'Decimal', value: '29.99' },
      });
      const r = await get(c, id);
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({
        id,
        name: { type: 'String', value: 'Ada' },
        age: { type: 'Integer', value: 36 },
        score: { type: 'Float', value: 9.5 },
        active: { type: 'Boolean', value: true },
        tags: { type: 'Array', value: ['a', 'b'] },
        address: { type: 'Object', value: { city: 'London' } },
        born: { type: 'DateTime', value: '1815-12-10T00:00:00+00:00' },
        nothing: { type: 'Null', value: null },
        price: { type: 'Decimal', value: '29.99' },
      });
    });

    it('projects with comma-separated select_fields and exclude_fields, always keeping id', async () => {
      const c = fresh();
      const id = await insert(c, { a: 1, b: 2, c: 3 });
      const sel = await t.request('GET', `/api/find/${c}/${id}?select_fields=a,c`);
      expect(sel.status).to.equal(200);
      expect(Object.keys(sel.body).sort()).to.deep.equal(['a', 'c', 'id']);
      const exc = await t.request('GET', `/api/find/${c}/${id}?exclude_fields=a,c`);
      expect(Object.keys(exc.body).sort()).to.deep.equal(['b', 'id']);
      const excId = await t.request('GET', `/api/find/${c}/${id}?exclude_fields=id`);
      expect(excId.body.id).to.equal(id);
    });

    it('answers 404 "Record not found" for a missing record and for a missing collection', async () => {
      const c = fresh();
      await insert(c, { a: 1 });
      expectError(await get(c, 'nope'), 404, 'Record not found');
      expectError(await get(fresh('never'), 'nope'), 404, 'Record not found');
    });
  });

  describe('PUT /api/update/{c}/{id}', () => {
    it('merges the body and returns the full typed record', async () => {
      const c = fresh();
      const id = await insert(c, { name: 'Ada', age: 36, city: 'London' });
      const r = await t.request('PUT', `/api/update/${c}/${id}`, { age: 37, email: 'ada@example.com' });
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({
        id,
        name: { type: 'String', value: 'Ada' },
        age: { type: 'Integer', value: 37 },
        city: { type: 'String', value: 'London' },
        email: { type: 'String', value: 'ada@example.com' },
      });
      expect((await get(c, id)).body).to.deep.equal(r.body);
    });

    it('answers 404 for a missing record or collection and creates nothing', async () => {
      const c = fresh();
      await insert(c, { a: 1 });
      expectError(await t.request('PUT', `/api/update/${c}/missing`, { a: 2 }), 404, 'Record not found');
      const none = fresh('never');
      expectError(await t.request('PUT', `/api/update/${none}/missing`, { a: 2 }), 404, 'Record not found');
      expect(await count(c)).to.equal(1);
      expectError(await get(none, 'missing'), 404);
      const list = await t.request('GET', '/api/collections');
      expect(list.body.collections).to.not.include(none);
    });

    it('supports the upsert pattern: update 404, then insert with the id', async () => {
      const c = fresh();
      const miss = await t.request('PUT', `/api/update/${c}/u1`, { v: 1 });
      expectError(miss, 404, 'Record not found');
      await insert(c, { id: 'u1', v: 1 });
      const hit = await t.request('PUT', `/api/update/${c}/u1`, { v: 2 });
      expect(bare(hit.body)).to.deep.equal({ id: 'u1', v: 2 });
    });

    it('refuses to change the id and leaves the record unchanged', async () => {
      const c = fresh();
      const id = await insert(c, { v: 1 });
      expectError(await t.request('PUT', `/api/update/${c}/${id}`, { id: 'other', v: 2 }), 400);
      expect(bare((await get(c, id)).body)).to.deep.equal({ id, v: 1 });
      expectError(await get(c, 'other'), 404);
      const same = await t.request('PUT', `/api/update/${c}/${id}`, { id, v: 3 });
      expect(same.status).to.equal(200);
      expect(bare(same.body)).to.deep.equal({ id, v: 3 });
    });

    it('honours select_fields and exclude_fields on the returned record', async () => {
      const c = fresh();
      const id = await insert(c, { a: 1, b: 2 });
      const r = await t.request('PUT', `/api/update/${c}/${id}?select_fields=b`, { a: 5 });
      expect(r.body).to.deep.equal({ id, b: { type: 'Integer', value: 2 } });
      const g = await t.request('PUT', `/api/update/${c}/${id}?exclude_fields=a&exclude_fields=b`, { a: 6 });
      expect(g.body).to.deep.equal({ id });
      expect(bare((await get(c, id)).body)).to.deep.equal({ id, a: 6, b: 2 });
    });
  });

  describe('PUT /api/update/{c}/{id}/action/{action}', () => {
    const cases: Array<{ action: string; start: unknown; value: unknown; expected: unknown }> = [
      { action: 'increment', start: 5, value: 3, expected: 8 },
      { action: 'decrement', start: 5, value: 2, expected: 3 },
      { action: 'multiply', start: 5, value: 4, expected: 20 },
      { action: 'divide', start: 20, value: 4, expected: 5 },
      { action: 'modulo', start: 17, value: 5, expected: 2 },
      { action: 'push', start: [1, 2], value: 3, expected: [1, 2, 3] },
      { action: 'pop', start: [1, 2, 3], value: null, expected: [1, 2] },
      { action: 'shift', start: [1, 2, 3], value: null, expected: [2, 3] },
      { action: 'unshift', start: [1, 2], value: 0, expected: [0, 1, 2] },
      { action: 'remove', start: ['a', 'b', 'a', 'c'], value: 'a', expected: ['b', 'c'] },
      { action: 'append', start: 'foo', value: 'bar', expected: 'foobar' },
      { action: 'clear', start: [1, 2], value: null, expected: [] },
    ];

    for (const { action, start, value, expected } of cases) {
      it(`applies ${action} and returns the full updated record`, async () => {
        const c = fresh();
        const id = await insert(c, { f: start, other: 'kept' });
        const r = await t.request('PUT', `/api/update/${c}/${id}/action/${action}`, { field: 'f', value });
        expect(r.status, r.text).to.equal(200);
        expect(bare(r.body)).to.deep.equal({ id, f: expected, other: 'kept' });
        expect(bare((await get(c, id)).body).f).to.deep.equal(expected);
      });
    }

    it('increments by one when the value is null or absent', async () => {
      const c = fresh();
      const id = await insert(c, { n: 1 });
      await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n', value: null });
      const r = await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n' });
      expect(r.body.n).to.deep.equal({ type: 'Integer', value: 3 });
    });

    it('answers 400 "Failed to apply action \'increment\': field not numeric" and changes nothing', async () => {
      const c = fresh();
      const id = await insert(c, { name: 'x' });
      const r = await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'name', value: 1 });
      expectError(r, 400, "Failed to apply action 'increment': field not numeric");
      expect(bare((await get(c, id)).body)).to.deep.equal({ id, name: 'x' });
    });

    it('accepts the Rust positional MessagePack body [field, value]', async () => {
      const c = fresh();
      const id = await insert(c, { n: 10 });
      const r = await t.request('PUT', `/api/update/${c}/${id}/action/increment`, ['n', 5], { format: 'msgpack' });
      expect(r.status, r.text).to.equal(200);
      expectFormat(r, 'msgpack');
      expect(r.body.n).to.deep.equal({ type: 'Integer', value: 15 });
    });

    it('answers 404 for a missing record and 400 for an unknown action', async () => {
      const c = fresh();
      const id = await insert(c, { n: 1 });
      expectError(
        await t.request('PUT', `/api/update/${c}/missing/action/increment`, { field: 'n', value: 1 }),
        404,
        'Record not found',
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}/action/explode`, { field: 'n', value: 1 }),
        400,
        /Unknown update action 'explode'/,
      );
      expect(bare((await get(c, id)).body).n).to.equal(1);
    });

    it('refuses to modify id', async () => {
      const c = fresh();
      const id = await insert(c, { n: 1 });
      expectError(await t.request('PUT', `/api/update/${c}/${id}/action/append`, { field: 'id', value: 'x' }), 400);
      expect((await get(c, id)).status).to.equal(200);
    });
  });

  describe('PUT /api/update/sequence/{c}/{id}', () => {
    it('applies [action, field, value] triples in order and returns the full record', async () => {
      const c = fresh();
      const id = await insert(c, { n: 1, tags: ['a'], s: 'x' });
      const r = await t.request('PUT', `/api/update/sequence/${c}/${id}`, [
        ['increment', 'n', 4],
        ['multiply', 'n', 2],
        ['push', 'tags', 'b'],
        ['append', 's', 'y'],
      ]);
      expect(r.status, r.text).to.equal(200);
      expect(bare(r.body)).to.deep.equal({ id, n: 10, tags: ['a', 'b'], s: 'xy' });
      expect(bare((await get(c, id)).body)).to.deep.equal(bare(r.body));
    });

    it('is atomic: a failing step changes nothing', async () => {
      const c = fresh();
      const id = await insert(c, { n: 1, s: 'x' });
      const r = await t.request('PUT', `/api/update/sequence/${c}/${id}`, [
        ['increment', 'n', 4],
        ['increment', 's', 1],
        ['append', 's', 'y'],
      ]);
      expectError(r, 400, "Failed to apply action 'increment': field not numeric");
      expect(bare((await get(c, id)).body)).to.deep.equal({ id, n: 1, s: 'x' });
    });

    it('answers 404 for a missing record', async () => {
      const c = fresh();
      await insert(c, { n: 1 });
      expectError(
        await t.request('PUT', `/api/update/sequence/${c}/missing`, [['increment', 'n', 1]]),
        404,
        'Record not found',
      );
    });
  });

  describe('DELETE /api/delete/{c}/{id}', () => {
    it('answers with a non-empty JSON body, after which the record is 404', async () => {
      const c = fresh();
      const id = await insert(c, { a: 1 });
      await insert(c, { a: 2 });
      const r = await t.request('DELETE', `/api/delete/${c}/${id}`);
      expect(r.status).to.equal(200);
      expect(r.text.length).to.be.greaterThan(1);
      expect(r.body).to.be.an('object');
      expect(r.body.id).to.equal(id);
      expectError(await get(c, id), 404, 'Record not found');
      expect(await count(c)).to.equal(1);
      expectError(await t.request('DELETE', `/api/delete/${c}/${id}`), 404, 'Record not found');
    });

    it('answers 404 for a missing collection', async () => {
      expectError(await t.request('DELETE', `/api/delete/${fresh('never')}/x`), 404, 'Record not found');
    });
  });

  describe('POST /api/distinct/{c}/{field}', () => {
    it('returns {collection, field, values, count} with bare, sorted values', async () => {
      const c = fresh();
      for (const city of ['Paris', 'Berlin', 'Paris', 'Athens']) await insert(c, { city, n: city.length });
      await insert(c, { other: true });
      const r = await t.request('POST', `/api/distinct/${c}/city`, {});
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ collection: c, field: 'city', values: ['Athens', 'Berlin', 'Paris'], count: 3 });
    });

    it('restricts values with a filter', async () => {
      const c = fresh();
      for (const [city, n] of [
        ['Paris', 1],
        ['Berlin', 2],
        ['Rome', 3],
      ] as const)
        await insert(c, { city, n });
      const filter = { type: 'Condition', content: { field: 'n', operator: 'Gte', value: 2 } };
      const r = await t.request('POST', `/api/distinct/${c}/city`, { filter });
      expect(r.body.values).to.deep.equal(['Berlin', 'Rome']);
      expect(r.body.count).to.equal(2);
    });

    it('reads nested fields by dotted path and accepts Rust-style nulls', async () => {
      const c = fresh();
      await insert(c, { address: { city: 'Oslo' } });
      await insert(c, { address: { city: 'Bergen' } });
      await insert(c, { address: 'unknown' });
      const r = await t.request('POST', `/api/distinct/${c}/address.city`, {
        filter: null,
        bypass_ripple: null,
        bypass_cache: null,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.values).to.deep.equal(['Bergen', 'Oslo']);
    });

    it('accepts a request without a body', async () => {
      const c = fresh();
      await insert(c, { k: 2 });
      await insert(c, { k: 1 });
      const r = await t.request('POST', `/api/distinct/${c}/k`);
      expect(r.body.values).to.deep.equal([1, 2]);
    });
  });

  describe('GET /api/{c}/count', () => {
    it('counts the live records of a collection', async () => {
      const c = fresh();
      expect(await count(c)).to.equal(0);
      await insert(c, { a: 1 });
      const id = await insert(c, { a: 2 });
      expect(await count(c)).to.equal(2);
      await t.request('DELETE', `/api/delete/${c}/${id}`);
      expect(await count(c)).to.equal(1);
    });
  });

  for (const format of FORMATS) {
    describe(`every record route over ${format}`, () => {
      it('decodes the request and encodes the response in the negotiated format', async () => {
        const c = fresh();
        const opts = { format };
        const ins = await t.request('POST', `/api/insert/${c}`, { name: 'a', n: 1, tags: ['x'] }, opts);
        expect(ins.status).to.equal(201);
        expectFormat(ins, format);
        const id = ins.body.id as string;
        expect(id).to.be.a('string');

        const got = await t.request('GET', `/api/find/${c}/${id}`, undefined, opts);
        expectFormat(got, format);
        expect(got.body).to.deep.equal({
          id,
          name: { type: 'String', value: 'a' },
          n: { type: 'Integer', value: 1 },
          tags: { type: 'Array', value: ['x'] },
        });

        const found = await t.request(
          'POST',
          `/api/find/${c}`,
          { filter: { field: 'n', operator: 'Eq', value: 1 } },
          opts,
        );
        expectFormat(found, format);
        expect(found.body).to.deep.equal([got.body]);

        const upd = await t.request('PUT', `/api/update/${c}/${id}`, { n: 2 }, opts);
        expectFormat(upd, format);
        expect(bare(upd.body)).to.deep.equal({ id, name: 'a', n: 2, tags: ['x'] });

        const act = await t.request('PUT', `/api/update/${c}/${id}/action/push`, { field: 'tags', value: 'y' }, opts);
        expectFormat(act, format);
        expect(bare(act.body).tags).to.deep.equal(['x', 'y']);

        const seq = await t.request('PUT', `/api/update/sequence/${c}/${id}`, [['increment', 'n', 3]], opts);
        expectFormat(seq, format);
        expect(bare(seq.body).n).to.equal(5);

        const dis = await t.request('POST', `/api/distinct/${c}/name`, {}, opts);
        expectFormat(dis, format);
        expect(dis.body).to.deep.equal({ collection: c, field: 'name', values: ['a'], count: 1 });

        const cnt = await t.request('GET', `/api/${c}/count`, undefined, opts);
        expectFormat(cnt, format);
        expect(cnt.body).to.deep.equal({ count: 1 });

        const del = await t.request('DELETE', `/api/delete/${c}/${id}`, undefined, opts);
        expect(del.status).to.equal(200);
        expectFormat(del, format);
        expect(del.body.id).to.equal(id);
        expect((await t.request('GET', `/api/find/${c}/${id}`, undefined, opts)).status).to.equal(404);
      });
    });
  }

  it('round-trips MessagePack binary and typed values', async () => {
    const c = fresh();
    const bytes = new Uint8Array([0, 1, 2, 255]);
    const id = await insert(
      c,
      { blob: bytes, when: { type: 'DateTime', value: '2026-01-02T03:04:05.123456Z' } },
      'msgpack',
    );
    const r = await t.request('GET', `/api/find/${c}/${id}`, undefined, { format: 'msgpack' });
    expect(r.body.blob.type).to.equal('Binary');
    expect(Array.from(r.body.blob.value as Uint8Array)).to.deep.equal([0, 1, 2, 255]);
    expect(r.body.when).to.deep.equal({ type: 'DateTime', value: '2026-01-02T03:04:05.123456+00:00' });
    const j = await get(c, id);
    expect(j.body.blob.value).to.deep.equal([0, 1, 2, 255]);
  });

  it('round-trips a percent-encoded unicode id', async () => {
    const c = fresh();
    const id = 'ünï/😀+&=';
    await insert(c, { id, n: 1 });
    const got = await t.request('GET', `/api/find/${c}/${encodeURIComponent(id)}`);
    expect(got.body.id).to.equal(id);
  });

  it('round-trips a percent-encoded id containing a slash on every route', async () => {
    const c = fresh();
    const id = 'a/b c?d%e#f';
    await insert(c, { id, n: 1 });
    const p = encodeURIComponent(id);
    const got = await t.request('GET', `/api/find/${c}/${p}`);
    expect(got.status, got.text).to.equal(200);
    expect(got.body.id).to.equal(id);
    expect((await t.request('PUT', `/api/update/${c}/${p}`, { n: 2 })).status).to.equal(200);
    expect(
      (await t.request('PUT', `/api/update/${c}/${p}/action/increment`, { field: 'n', value: 1 })).status,
    ).to.equal(200);
    const seq = await t.request('PUT', `/api/update/sequence/${c}/${p}`, [['increment', 'n', 1]]);
    expect(bare(seq.body)).to.deep.equal({ id, n: 4 });
    expect((await t.request('DELETE', `/api/delete/${c}/${p}`)).status).to.equal(200);
    expect((await get(c, id)).status).to.equal(404);
  });

  describe('primary-key alias', () => {
    it('uses the alias field as the key on insert and accepts alias values on get, update and delete', async () => {
      const c = fresh();
      const before = await insert(c, { sku: 'OLD-1', name: 'old' });
      const set = await t.request('PUT', `/api/schemas/${c}/primary-key-alias`, { alias: 'sku' });
      expect(set.status, set.text).to.equal(200);
      expect(set.body.alias).to.equal('sku');
      const schema = await t.request('GET', `/api/schemas/${c}`);
      expect(schema.body.primary_key_alias).to.equal('sku');

      const id = await insert(c, { sku: 'ABC-1', name: 'widget' });
      expect(id).to.equal('ABC-1');
      const got = await get(c, 'ABC-1');
      expect(bare(got.body)).to.deep.equal({ id: 'ABC-1', sku: 'ABC-1', name: 'widget' });
      expectError(await t.request('POST', `/api/insert/${c}`, { sku: 'ABC-1', name: 'again' }), 409);

      const old = await get(c, 'OLD-1');
      expect(old.status).to.equal(200);
      expect(old.body.id).to.equal(before);
      const upd = await t.request('PUT', `/api/update/${c}/OLD-1`, { name: 'renamed' });
      expect(bare(upd.body)).to.deep.equal({ id: before, sku: 'OLD-1', name: 'renamed' });
      const act = await t.request('PUT', `/api/update/${c}/OLD-1/action/append`, { field: 'name', value: '!' });
      expect(bare(act.body).name).to.equal('renamed!');
      expect((await t.request('DELETE', `/api/delete/${c}/OLD-1`)).status).to.equal(200);
      expectError(await get(c, 'OLD-1'), 404);
      expectError(await get(c, before), 404);
      expect(await count(c)).to.equal(1);
    });

    it('looks alias values up as own fields only, even for an alias named like an Object method', async () => {
      const c = fresh();
      await insert(c, { name: 'first' });
      expect((await t.request('PUT', `/api/schemas/${c}/primary-key-alias`, { alias: 'toString' })).status).to.equal(
        200,
      );
      const plain = await insert(c, { name: 'no alias value' });
      expect(plain).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(await insert(c, { toString: 'k1', name: 'keyed' })).to.equal('k1');
      expectError(await get(c, String(Object.prototype.toString)), 404, 'Record not found');
      expect(bare((await get(c, 'k1')).body).name).to.equal('keyed');
      expect(await count(c)).to.equal(3);
    });

    it('refuses a hostile alias, or keeps inserts and lookups working when one was accepted', async () => {
      const c = fresh();
      await insert(c, { name: 'first' });
      const set = await t.request('PUT', `/api/schemas/${c}/primary-key-alias`, { alias: 'constructor' });
      if (set.status === 200) {
        expect(await insert(c, { name: 'second' })).to.be.a('string');
        expectError(await get(c, String(Object)), 404, 'Record not found');
      } else {
        expectError(set, 400);
      }
      expect(await count(c)).to.be.oneOf([1, 2]);
    });

    it('generates an id when the alias field is null or absent', async () => {
      const c = fresh();
      await insert(c, { name: 'first' });
      await t.request('PUT', `/api/schemas/${c}/primary-key-alias`, { alias: 'sku' });
      expect(await insert(c, { sku: null, name: 'x' })).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(await insert(c, { name: 'y' })).to.match(/^[A-Za-z0-9_-]{22}$/);
      expectError(await t.request('POST', `/api/insert/${c}`, { sku: 'a\u0001b' }), 400);
      expectError(await t.request('POST', `/api/insert/${c}`, { sku: { nested: 1 } }), 400);
      expect(await count(c)).to.equal(3);
    });
  });

  describe('use_typed_values', () => {
    it('switches reads to bare values when turned off', async () => {
      const c = fresh();
      const id = await insert(c, { name: 'Ada', n: 1, when: '2026-01-01T00:00:00Z' });
      const off = await t.request('PUT', '/api/config', { use_typed_values: false });
      expect(off.status, off.text).to.equal(200);
      try {
        expect((await get(c, id)).body).to.deep.equal({ id, name: 'Ada', n: 1, when: '2026-01-01T00:00:00+00:00' });
        const found = await t.request('POST', `/api/find/${c}`, {});
        expect(found.body).to.deep.equal([{ id, name: 'Ada', n: 1, when: '2026-01-01T00:00:00+00:00' }]);
        const upd = await t.request('PUT', `/api/update/${c}/${id}`, { n: 2 });
        expect(upd.body.n).to.equal(2);
      } finally {
        const on = await t.request('PUT', '/api/config', { use_typed_values: true });
        expect(on.status).to.equal(200);
      }
      expect((await get(c, id)).body.n).to.deep.equal({ type: 'Integer', value: 2 });
    });
  });

  describe('bad input', () => {
    let c: string;
    let id: string;
    let snapshot: unknown;

    beforeEach(async () => {
      c = fresh('bad');
      id = await insert(c, { name: 'x', n: 1, tags: ['a'] });
      snapshot = (await get(c, id)).body;
    });

    async function expectUnchanged(): Promise<void> {
      expect((await get(c, id)).body).to.deep.equal(snapshot);
      expect(await count(c)).to.equal(1);
    }

    const hostileBodies: Array<[string, string]> = [
      ['top-level __proto__', '{"__proto__":{"polluted":true},"a":1}'],
      ['nested __proto__', '{"a":{"b":{"__proto__":{"polluted":true}}}}'],
      ['top-level constructor', '{"constructor":{"prototype":{"polluted":true}}}'],
      ['nested constructor', '{"a":[{"constructor":1}]}'],
      ['top-level prototype', '{"prototype":1}'],
      ['typed wrapper hiding __proto__', '{"a":{"type":"Object","value":{"__proto__":{"polluted":true}}}}'],
    ];

    const nonObjects: Array<[string, string]> = [
      ['an array', '[1,2]'],
      ['a string', '"x"'],
      ['a number', '42'],
      ['null', 'null'],
    ];

    async function rawJson(method: string, path: string, text: string): Promise<Reply> {
      return t.request(method, path, undefined, { raw: text });
    }

    it('rejects hostile keys on insert and update in JSON', async () => {
      for (const [what, text] of hostileBodies) {
        const ins = await rawJson('POST', `/api/insert/${c}`, text);
        expectError(ins, 400);
        const upd = await rawJson('PUT', `/api/update/${c}/${id}`, text);
        expect(upd.status, `${what}: ${upd.text}`).to.equal(400);
        expect(upd.body.error).to.be.a('string');
      }
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      await expectUnchanged();
    });

    async function expectMsgpackRejected(what: string, raw: Buffer): Promise<void> {
      const ins = await t.request('POST', `/api/insert/${c}`, undefined, { format: 'msgpack', raw });
      expect(ins.status, `${what}: ${ins.text}`).to.equal(400);
      const upd = await t.request('PUT', `/api/update/${c}/${id}`, undefined, { format: 'msgpack', raw });
      expect(upd.status, `${what}: ${upd.text}`).to.equal(400);
      expect(JSON.parse(upd.text).error).to.be.a('string');
    }

    it('rejects constructor keys on insert and update in MessagePack', async () => {
      await expectMsgpackRejected('constructor', Buffer.from(mpEncode({ constructor: { prototype: { x: 1 } } })));
      await expectMsgpackRejected('nested constructor', Buffer.from(mpEncode({ a: { constructor: 1 } })));
      await expectUnchanged();
    });

    it('rejects __proto__ keys on insert and update in MessagePack', async () => {
      // fixmap(1) { "__proto__": fixmap(1) {"x": 1} }
      await expectMsgpackRejected(
        'top-level __proto__',
        Buffer.concat([Buffer.from([0x81, 0xa9]), Buffer.from('__proto__'), Buffer.from([0x81, 0xa1, 0x78, 0x01])]),
      );
      // fixmap(1) { "a": fixmap(1) {"__proto__": 1} }
      await expectMsgpackRejected(
        'nested __proto__',
        Buffer.concat([Buffer.from([0x81, 0xa1, 0x61, 0x81, 0xa9]), Buffer.from('__proto__'), Buffer.from([0x01])]),
      );
      await expectUnchanged();
    });

    it('rejects non-object bodies on insert and update', async () => {
      for (const [what, text] of nonObjects) {
        const ins = await rawJson('POST', `/api/insert/${c}`, text);
        expect(ins.status, `${what}: ${ins.text}`).to.equal(400);
        expect(ins.body.error).to.be.a('string');
        const upd = await rawJson('PUT', `/api/update/${c}/${id}`, text);
        expect(upd.status, `${what}: ${upd.text}`).to.equal(400);
      }
      await expectUnchanged();
    });

    it('rejects malformed JSON and MessagePack bodies', async () => {
      expectError(await rawJson('POST', `/api/insert/${c}`, '{"a":'), 400);
      expectError(await rawJson('PUT', `/api/update/${c}/${id}`, '{"a":1,,}'), 400);
      const bad = Buffer.from([0x82, 0xa1, 0x61]);
      const r = await t.request('POST', `/api/insert/${c}`, undefined, { format: 'msgpack', raw: bad });
      expect(r.status, r.text).to.equal(400);
      await expectUnchanged();
    });

    it('rejects bad ids in the body: too long, control characters, wrong types', async () => {
      const bads: unknown[] = ['x'.repeat(600), 'a\u0000b', 'tab\there', 'nl\n', '', true, { a: 1 }, [1], 1.5];
      for (const bad of bads) {
        const r = await t.request('POST', `/api/insert/${c}`, { id: bad, v: 1 });
        expect(r.status, `${JSON.stringify(bad)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
      await expectUnchanged();
    });

    it('rejects bad ids in the path on every route', async () => {
      const bads = ['x'.repeat(600), 'a%00b', 'a%0Ab', '%E0%A4%A'];
      for (const bad of bads) {
        const replies = [
          await t.request('GET', `/api/find/${c}/${bad}`),
          await t.request('PUT', `/api/update/${c}/${bad}`, { n: 2 }),
          await t.request('PUT', `/api/update/${c}/${bad}/action/increment`, { field: 'n', value: 1 }),
          await t.request('PUT', `/api/update/sequence/${c}/${bad}`, [['increment', 'n', 1]]),
          await t.request('DELETE', `/api/delete/${c}/${bad}`),
        ];
        for (const r of replies) {
          expect(r.status, `${bad.slice(0, 20)}: ${r.text}`).to.equal(400);
          expect(r.body.error).to.be.a('string');
        }
      }
      await expectUnchanged();
    });

    it('rejects hostile and invalid collection names on every route', async () => {
      for (const name of ['__proto__', 'constructor', 'prototype', '.hidden', 'a%20b', 'x'.repeat(200)]) {
        const replies = [
          await t.request('POST', `/api/insert/${name}`, { a: 1 }),
          await t.request('GET', `/api/find/${name}/${id}`),
          await t.request('POST', `/api/find/${name}`, {}),
          await t.request('PUT', `/api/update/${name}/${id}`, { a: 1 }),
          await t.request('PUT', `/api/update/${name}/${id}/action/increment`, { field: 'n', value: 1 }),
          await t.request('PUT', `/api/update/sequence/${name}/${id}`, [['increment', 'n', 1]]),
          await t.request('DELETE', `/api/delete/${name}/${id}`),
          await t.request('POST', `/api/distinct/${name}/n`, {}),
          await t.request('GET', `/api/${name}/count`),
        ];
        for (const r of replies) expectError(r, 400, 'Invalid collection name');
      }
      const list = await t.request('GET', '/api/collections');
      expect(list.body.collections.filter((n: string) => n.includes('proto') || n === 'constructor')).to.deep.equal([]);
    });

    it('rejects malformed update-action bodies', async () => {
      const bodies: unknown[] = [
        {},
        { field: 3, value: 1 },
        { value: 1 },
        { field: '', value: 1 },
        { field: '__proto__', value: 1 },
        { field: 'constructor', value: 1 },
        { field: 'id', value: 1 },
        { field: 'ttl', value: 1 },
        [],
        [1, 2],
        ['n', 1, 2, 3],
        'n',
      ];
      for (const body of bodies) {
        const r = await t.request('PUT', `/api/update/${c}/${id}/action/increment`, body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
      const pushes: unknown[] = [
        { field: 'tags', value: { constructor: 1 } },
        { field: 'tags', value: { a: { prototype: 1 } } },
      ];
      for (const body of pushes) expectError(await t.request('PUT', `/api/update/${c}/${id}/action/push`, body), 400);
      expectError(
        await rawJson('PUT', `/api/update/${c}/${id}/action/push`, '{"field":"tags","value":{"__proto__":{"x":1}}}'),
        400,
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n', value: 'abc' }),
        400,
        "Failed to apply action 'increment': value not numeric",
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}/action/divide`, { field: 'n', value: 0 }),
        400,
        /division by zero/,
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}/action/push`, { field: 'name', value: 1 }),
        400,
        /field not an array/,
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}/action/append`, { field: 'n', value: 'x' }),
        400,
        /field not a string/,
      );
      const overflow = [
        ['multiply', 'n', 1e308],
        ['multiply', 'n', 1e308],
      ];
      expectError(await t.request('PUT', `/api/update/sequence/${c}/${id}`, overflow), 400, /result out of range/);
      await expectUnchanged();
    });

    it('rejects malformed sequence bodies', async () => {
      const bodies: unknown[] = [
        {},
        { steps: [] },
        'x',
        [['explode', 'n', 1]],
        [['increment']],
        [['increment', 3, 1]],
        [['increment', '__proto__', 1]],
        [['increment', 'constructor', 1]],
        [['push', 'tags', { constructor: 1 }]],
        [[1, 2, 3]],
        [null],
        [['increment', 'n', 1, 'extra']],
        [
          ['increment', 'n', 1],
          ['clear', 'ttl', null],
        ],
        [['append', 'id', 'x']],
      ];
      for (const body of bodies) {
        const r = await t.request('PUT', `/api/update/sequence/${c}/${id}`, body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
      await expectUnchanged();
    });

    it('rejects malformed distinct requests', async () => {
      const bodies: unknown[] = [
        [],
        'x',
        { where: {} },
        { filter: 'x' },
        { filter: { field: 'n', operator: 'Regex', value: 'a' } },
        { constructor: 1 },
      ];
      for (const body of bodies) {
        const r = await t.request('POST', `/api/distinct/${c}/n`, body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
      for (const field of ['__proto__', 'constructor', 'a..b', 'constructor.prototype']) {
        const r = await t.request('POST', `/api/distinct/${c}/${encodeURIComponent(field)}`, {});
        expect(r.status, `${field}: ${r.text}`).to.equal(400);
      }
      await expectUnchanged();
    });

    it('rejects wrongly typed values in typed wrappers', async () => {
      const bodies = [
        { a: { type: 'Integer', value: 'x' } },
        { a: { type: 'Integer', value: 1.5 } },
        { a: { type: 'DateTime', value: 'yesterday' } },
        { a: { type: 'UUID', value: 'nope' } },
        { a: { type: 'Decimal', value: 'ten' } },
        { a: { type: 'Boolean', value: 1 } },
        { a: { type: 'Vector', value: ['x'] } },
      ];
      for (const body of bodies) {
        expectError(await t.request('POST', `/api/insert/${c}`, body), 400);
        expectError(await t.request('PUT', `/api/update/${c}/${id}`, body), 400);
      }
      await expectUnchanged();
    });

    it('answers 404 with {error} for unknown transactions and changes nothing', async () => {
      expectError(
        await t.request('POST', `/api/insert/${c}?transaction_id=nope`, { a: 1 }),
        404,
        'Transaction not found',
      );
      expectError(
        await t.request('PUT', `/api/update/${c}/${id}?transaction_id=nope`, { n: 9 }),
        404,
        'Transaction not found',
      );
      expectError(
        await t.request('DELETE', `/api/delete/${c}/${id}?transaction_id=nope`),
        404,
        'Transaction not found',
      );
      await expectUnchanged();
    });

    it('never answers 500 and keeps serving after a barrage of bad requests', async () => {
      const junk = ['', '{', '[', 'nul', '{"a":1}x', '\u0000', '{"a":"\\ud800"}', '{"a":1e999}', '{"a":-1e999}'];
      for (const text of junk) {
        for (const [method, path] of [
          ['POST', `/api/insert/${c}`],
          ['PUT', `/api/update/${c}/${id}`],
        ] as const) {
          const r = await rawJson(method, path, text);
          expect(r.status, `${JSON.stringify(text)} on ${method}: ${r.text}`).to.be.within(200, 499);
        }
      }
      expect((await get(c, id)).status).to.equal(200);
    });
  });

  describe('body size limit', () => {
    let small: TestServer;
    before(async () => {
      small = await TestServer.start({ bodyLimitBytes: 4096 });
    });
    after(async () => {
      await small.stop();
    });

    it('answers 413 with {error} on every record route and changes nothing', async () => {
      const c = fresh('big');
      const ins = await small.request('POST', `/api/insert/${c}`, { n: 1 });
      const id = ins.body.id as string;
      const huge = 'x'.repeat(10_000);
      const replies = [
        await small.request('POST', `/api/insert/${c}`, { big: huge }),
        await small.request('POST', `/api/insert/${c}`, { big: huge }, { format: 'msgpack' }),
        await small.request('PUT', `/api/update/${c}/${id}`, { big: huge }),
        await small.request('PUT', `/api/update/${c}/${id}/action/append`, { field: 'n', value: huge }),
        await small.request('PUT', `/api/update/sequence/${c}/${id}`, [['append', 'n', huge]]),
        await small.request('POST', `/api/find/${c}`, { filter: { field: 'n', operator: 'Eq', value: huge } }),
        await small.request('POST', `/api/distinct/${c}/n`, { filter: { field: 'n', operator: 'Eq', value: huge } }),
      ];
      for (const r of replies) expectError(r, 413);
      const got = await small.request('GET', `/api/find/${c}/${id}`);
      expect(bare(got.body)).to.deep.equal({ id, n: 1 });
      expect((await small.request('GET', `/api/${c}/count`)).body.count).to.equal(1);
    });
  });
});
