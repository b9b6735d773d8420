/**
 * Bounded work per request. 100,000 `select_fields` names
 * blocked the event loop for 1.6 s on 50 records. Every list a request may
 * carry now has a documented limit (lib/engine/input/limits.ts): one above it is a
 * 400 naming the member, the limit itself is served. Over real HTTP.
 */
import { expect } from 'chai';
import { TestServer, type Reply } from '../helpers/test-server.js';
import {
  MAX_ACTION_STEPS,
  MAX_EMBED_TEXTS,
  MAX_FIELD_NAMES,
  MAX_FIELD_PATH_LENGTH,
  MAX_FILTER_EXPRESSIONS,
  MAX_FILTER_VALUES,
  MAX_IN_VALUES,
  MAX_JOIN_COLLECTIONS,
  MAX_QUERY_INDEXES,
  MAX_SORT_KEYS,
} from '../../lib/engine/input/limits.js';

const names = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function expect400(r: Reply, member: string): void {
  expect(r.status, r.text.slice(0, 300)).to.equal(400);
  expect(r.body.error).to.contain(member);
}

describe('bounded work per request', () => {
  let t: TestServer;
  let call: TestServer['request'];
  let someId: string;

  before(async () => {
    t = await TestServer.start({ settings: { durability: 'none' } });
    call = t.request.bind(t);
    const inserts = range(50).map((i) => ({
      data: { n: i, name: `p${i}`, f1: 'one', f2: 'two', nested: { a: 1, b: 2 } },
    }));
    const r = await call('POST', '/api/batch/insert/people', { inserts });
    someId = r.body.successful[0];
  });
  after(async () => {
    await t.stop();
  });

  /** Asserts that `build(limit)` is served and `build(limit + 1)` is a 400 naming `member`. */
  async function bounded(limit: number, member: string, send: (n: number) => Promise<Reply>): Promise<Reply> {
    const at = await send(limit);
    expect(at.status, `${member} at the limit: ${at.text.slice(0, 300)}`).to.be.within(200, 299);
    expect400(await send(limit + 1), member);
    return at;
  }

  it('answers 100,000 select_fields or exclude_fields names fast with a 400 naming the member', async () => {
    await call('POST', '/api/find/people', { select_fields: names(10) });
    for (const member of ['select_fields', 'exclude_fields']) {
      const body = JSON.stringify({ [member]: names(100_000) });
      const started = performance.now();
      const r = await call('POST', '/api/find/people', undefined, { raw: body });
      // Most of this is moving and parsing 1 MB of JSON on a loaded machine; the scan per record it replaces took
      // seconds.
      expect(performance.now() - started).to.be.below(1500);
      expect400(r, member);
    }
    const health = performance.now();
    expect((await call('GET', '/api/health', undefined, { token: null })).status).to.equal(200);
    expect(performance.now() - health).to.be.below(500);
  });

  it('projects correctly with as many select_fields and exclude_fields names as allowed', async () => {
    const selected = await bounded(MAX_FIELD_NAMES, 'select_fields', (n) =>
      call('POST', '/api/find/people', { select_fields: ['name', 'nested.a', ...names(n - 2, 'x')] }),
    );
    expect(Object.keys(selected.body[0]).sort()).to.deep.equal(['id', 'name', 'nested']);
    const excluded = await bounded(MAX_FIELD_NAMES, 'exclude_fields', (n) =>
      call('POST', '/api/find/people', { exclude_fields: ['f1', 'nested.a', ...names(n - 2, 'x')] }),
    );
    expect(excluded.body[0]).to.not.have.any.keys('f1');
    expect(excluded.body[0].nested.value).to.deep.equal({ b: 2 });
    await bounded(MAX_FIELD_NAMES, 'select_fields', (n) =>
      call('GET', `/api/find/people/${someId}?select_fields=${names(n).join(',')}`),
    );
    await bounded(MAX_FIELD_NAMES, 'exclude_fields', (n) =>
      call('PUT', `/api/update/people/${someId}?exclude_fields=${names(n).join(',')}`, { f2: 'two' }),
    );
  });

  it('bounds search fields, weights and projections', async () => {
    const search = (extra: Record<string, unknown>) => call('POST', '/api/search/people', { query: 'one', ...extra });
    await bounded(MAX_FIELD_NAMES, 'fields', (n) => search({ fields: ['f1', ...names(n - 1)] }));
    await bounded(MAX_FIELD_NAMES, 'weights', (n) =>
      search({ weights: Object.fromEntries(names(n).map((f) => [f, 1])) }),
    );
    await bounded(MAX_FIELD_NAMES, 'weights', (n) =>
      search({
        weights: names(n)
          .map((f) => `${f}:1`)
          .join(','),
      }),
    );
    await bounded(MAX_FIELD_NAMES, 'select_fields', (n) => search({ select_fields: names(n) }));
  });

  it('bounds the length of a field path', async () => {
    const path = (n: number) => 'nested.' + 'a'.repeat(n - 7);
    await bounded(MAX_FIELD_PATH_LENGTH, 'filter', (n) =>
      call('POST', '/api/find/people', { filter: { field: path(n), operator: 'Eq', value: 1 } }),
    );
    await bounded(MAX_FIELD_PATH_LENGTH, 'sort', (n) =>
      call('POST', '/api/find/people', { sort: [{ field: path(n) }] }),
    );
    await bounded(MAX_FIELD_PATH_LENGTH, 'distinct field', (n) => call('POST', `/api/distinct/people/${path(n)}`, {}));
  });

  it('bounds In and NotIn lists, one by one and all together', async () => {
    const inList = (n: number, op = 'In') => ({
      field: 'n',
      operator: op,
      value: [...range(n - 1).map((i) => i + 1000), 7],
    });
    const found = await bounded(MAX_IN_VALUES, 'filter.value', (n) =>
      call('POST', '/api/find/people', { filter: inList(n) }),
    );
    expect(found.body.map((r: { n: { value: number } }) => r.n.value)).to.deep.equal([7]);
    await bounded(MAX_IN_VALUES, 'filter.content.value', (n) =>
      call('POST', '/api/find/people', { filter: { type: 'Condition', content: inList(n, 'NotIn') } }),
    );
    const lists = MAX_FILTER_VALUES / MAX_IN_VALUES;
    const or = (count: number) => ({ or: Array.from({ length: count }, () => inList(MAX_IN_VALUES)) });
    expect((await call('POST', '/api/find/people', { filter: or(lists) })).status).to.equal(200);
    expect400(await call('POST', '/api/find/people', { filter: or(lists + 1) }), 'In/NotIn values');
  });

  it('bounds the number of expressions in a filter, and its nesting without recursing past the bound', async () => {
    const cond = { field: 'n', operator: 'Eq', value: 1 };
    await bounded(MAX_FILTER_EXPRESSIONS - 1, 'filter.or', (n) =>
      call('POST', '/api/find/people', { filter: { or: Array(n).fill(cond) } }),
    );
    expect400(
      await call('POST', '/api/find/people', { filter: { or: Array(MAX_FILTER_EXPRESSIONS + 1).fill(cond) } }),
      'filter.or',
    );
    const deep = '{"not":'.repeat(100_000) + JSON.stringify(cond) + '}'.repeat(100_000);
    const started = performance.now();
    const r = await call('POST', '/api/find/people', undefined, { raw: `{"filter":${deep}}` });
    expect(performance.now() - started).to.be.below(2000);
    expect400(r, 'nested deeper than 32 levels');
  });

  it('bounds sort keys, join collections and update action sequences', async () => {
    await bounded(MAX_SORT_KEYS, 'sort', (n) =>
      call('POST', '/api/find/people', { sort: names(n).map((field) => ({ field })) }),
    );
    const join = (n: number) => ({
      collections: Array(n).fill('people'),
      local_field: 'n',
      foreign_field: 'n',
      as_field: 'same',
    });
    const joined = await bounded(MAX_JOIN_COLLECTIONS, 'join.collections', (n) =>
      call('POST', '/api/find/people', { join: join(n), limit: 2 }),
    );
    expect(joined.body[0].same).to.have.length(MAX_JOIN_COLLECTIONS);
    const steps = (n: number) => Array.from({ length: n }, () => ['increment', 'counter', 1]);
    const updated = await bounded(MAX_ACTION_STEPS, 'sequence', (n) =>
      call('PUT', `/api/update/sequence/people/${someId}`, steps(n)),
    );
    expect(updated.body.counter.value).to.equal(MAX_ACTION_STEPS);
  });

  it('joins many rows to a large target without a scan of the target per row', async () => {
    const targets = range(3000).map((i) => ({ data: { k: i, label: `t${i}` } }));
    expect((await call('POST', '/api/batch/insert/targets', { inserts: targets })).status).to.equal(201);
    const rows = range(3000).map((i) => ({ data: { ref: i } }));
    expect((await call('POST', '/api/batch/insert/rows', { inserts: rows })).status).to.equal(201);
    const started = performance.now();
    const r = await call('POST', '/api/find/rows', {
      join: { collections: ['targets'], local_field: 'ref', foreign_field: 'k', as_field: 't' },
    });
    expect(performance.now() - started).to.be.below(1500);
    expect(r.body).to.have.length(3000);
    for (const row of r.body)
      expect(row.t.map((x: { k: { value: number } }) => x.k.value)).to.deep.equal([row.ref.value]);
  });

  it('bounds KV batch key lists by max_batch_size', async () => {
    expect((await call('PUT', '/api/config', { max_batch_size: 10 })).status).to.equal(200);
    try {
      await bounded(10, 'keys', (n) => call('POST', '/api/kv/batch/get', { keys: names(n, 'k') }));
      await bounded(10, 'keys', (n) => call('POST', '/api/kv/batch/set', { keys: names(n, 'k'), values: range(n) }));
      await bounded(10, 'keys', (n) => call('DELETE', '/api/kv/batch/delete', { keys: names(n, 'k') }));
    } finally {
      await call('PUT', '/api/config', { max_batch_size: 10_000 });
    }
  });

  it('bounds embed texts, writable_fields of a key and query indexes of a collection', async () => {
    await bounded(MAX_EMBED_TEXTS, 'texts', (n) => call('POST', '/api/embed', { texts: Array(n).fill('a few words') }));
    await bounded(MAX_FIELD_NAMES, 'writable_fields', (n) =>
      call('POST', '/api/auth/keys', {
        collection_permissions: { people: { read: true, write: true, writable_fields: names(n) } },
      }),
    );
    await call('POST', '/api/collections/indexed', {});
    for (const field of names(MAX_QUERY_INDEXES))
      expect((await call('POST', '/api/indexes/query/indexed', { field })).status).to.equal(201);
    expect400(await call('POST', '/api/indexes/query/indexed', { field: 'one_more' }), 'one_more');
    expect((await call('GET', '/api/indexes/query/indexed')).body.indexes).to.have.length(MAX_QUERY_INDEXES);
  });
});
