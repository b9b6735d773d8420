/**
 * End-to-end specs of `POST /api/find/{c}` (protocol.md 2.4): every
 * operator, logical and flat filter forms, sort, paging, projection, joins,
 * Rust-style nulls and DateTime ranges; and the rule that a bad query is a
 * 400 `{error}`, never a crash.
 */
import { expect } from 'chai';
import { bare, TestServer, type Reply } from '../helpers/test-server.js';

const cond = (field: string, operator: string, value?: unknown) => ({
  type: 'Condition',
  content: value === undefined ? { field, operator } : { field, operator, value },
});
const logical = (operator: string, ...expressions: unknown[]) => ({
  type: 'Logical',
  content: { operator, expressions },
});

interface Person {
  name: string;
  age: number;
  city: string;
  tags: string[];
  joined: string;
  nick?: string;
  dept?: string;
  score: number;
}

const PEOPLE: Person[] = [
  {
    name: 'Ada',
    age: 36,
    city: 'London',
    tags: ['math', 'code'],
    joined: '2024-01-15T10:00:00Z',
    nick: 'countess',
    dept: 'd1',
    score: 9.5,
  },
  { name: 'Bob', age: 25, city: 'Paris', tags: ['art'], joined: '2024-03-01T00:00:00+02:00', dept: 'd2', score: 7 },
  { name: 'Cy', age: 41, city: 'London', tags: [], joined: '2024-06-30T23:59:59.999Z', dept: 'd1', score: 8.25 },
  { name: 'Dee', age: 25, city: 'Berlin', tags: ['code'], joined: '2023-12-31T23:00:00-02:00', nick: 'dd', score: 6 },
  {
    name: 'Eve',
    age: 30,
    city: 'Paris',
    tags: ['code', 'art'],
    joined: '2025-02-01T12:00:00Z',
    dept: 'missing',
    score: 9.5,
  },
];

function expectError(r: Reply, status = 400, message?: RegExp): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.body, r.text).to.be.an('object');
  expect(r.body.error, r.text).to.be.a('string');
  if (message) expect(r.body.error).to.match(message);
}

describe('http POST /api/find/{c}', () => {
  let t: TestServer;
  const c = 'people';

  // fetch already inflates gzip bodies, and the harness would inflate them again: ask for none.
  const IDENTITY = { 'Accept-Encoding': 'identity' };

  async function find(body: unknown, opts: { format?: 'json' | 'msgpack' } = {}): Promise<Reply> {
    return t.request('POST', `/api/find/${c}`, body, { ...opts, headers: IDENTITY });
  }

  async function names(body: unknown): Promise<string[]> {
    const r = await find(body);
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.be.an('array');
    return r.body.map((rec: Record<string, any>) => rec.name.value);
  }

  const where = (filter: unknown): Promise<string[]> => names({ filter });

  before(async () => {
    t = await TestServer.start();
    for (const p of PEOPLE) {
      const r = await t.request('POST', `/api/insert/${c}`, p);
      expect(r.status).to.equal(201);
    }
    for (const [id, name] of [
      ['d1', 'Research'],
      ['d2', 'Sales'],
    ]) {
      await t.request('POST', '/api/insert/depts', { id, name });
    }
    await t.request('POST', '/api/insert/teams', { id: 't1', lead: 'Ada', name: 'Core' });
    await t.request('POST', '/api/insert/clubs', { id: 'c1', member: 'Ada', name: 'Chess' });
  });
  after(async () => {
    await t.stop();
  });

  describe('body forms', () => {
    it('returns every record as a bare array of typed records for {}', async () => {
      const r = await find({});
      expect(r.status).to.equal(200);
      expect(r.body).to.have.length(PEOPLE.length);
      const first = r.body[0];
      expect(first.id).to.be.a('string');
      expect(first.name).to.deep.equal({ type: 'String', value: 'Ada' });
      expect(first.age).to.deep.equal({ type: 'Integer', value: 36 });
      expect(first.joined).to.deep.equal({ type: 'DateTime', value: '2024-01-15T10:00:00+00:00' });
    });

    it('treats a missing body as {}', async () => {
      const r = await t.request('POST', `/api/find/${c}`, undefined, { headers: IDENTITY });
      expect(r.status).to.equal(200);
      expect(r.body).to.have.length(PEOPLE.length);
    });

    it('returns an empty array for an unknown collection or no match', async () => {
      const r = await t.request('POST', '/api/find/nobody_here', {});
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal([]);
      expect(await where(cond('name', 'Eq', 'Zed'))).to.deep.equal([]);
    });

    it('treats Rust-style null members as absent', async () => {
      const r = await find({
        filter: null,
        sort: null,
        limit: null,
        skip: null,
        offset: null,
        select_fields: null,
        exclude_fields: null,
        join: null,
        bypass_cache: null,
        bypass_ripple: null,
        transaction_id: null,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.have.length(PEOPLE.length);
    });

    it('accepts bypass_ripple and bypass_cache in the body and the query string', async () => {
      expect(await names({ bypass_ripple: true, bypass_cache: false, limit: 1 })).to.deep.equal(['Ada']);
      const r = await t.request('POST', `/api/find/${c}?bypass_ripple=true`, { limit: 1 });
      expect(r.status).to.equal(200);
    });

    it('answers in MessagePack when asked', async () => {
      const r = await find({ filter: cond('name', 'Eq', 'Bob') }, { format: 'msgpack' });
      expect(r.headers.get('content-type')).to.include('application/msgpack');
      expect(r.body).to.have.length(1);
      expect(r.body[0].name).to.deep.equal({ type: 'String', value: 'Bob' });
    });
  });

  describe('operators', () => {
    it('Eq and Ne', async () => {
      expect(await where(cond('city', 'Eq', 'London'))).to.deep.equal(['Ada', 'Cy']);
      expect(await where(cond('city', 'Ne', 'London'))).to.deep.equal(['Bob', 'Dee', 'Eve']);
      expect(await where(cond('age', 'Eq', 25))).to.deep.equal(['Bob', 'Dee']);
      expect(await where(cond('score', 'Eq', 9.5))).to.deep.equal(['Ada', 'Eve']);
    });

    it('Eq on id finds one record', async () => {
      const all = await find({});
      const id = all.body[2].id;
      const r = await find({ filter: cond('id', 'Eq', id) });
      expect(r.body.map((x: any) => x.id)).to.deep.equal([id]);
    });

    it('Eq with a typed wrapper operand', async () => {
      expect(await where(cond('age', 'Eq', { type: 'Integer', value: 30 }))).to.deep.equal(['Eve']);
    });

    it('Gt, Gte, Lt and Lte', async () => {
      expect(await where(cond('age', 'Gt', 30))).to.deep.equal(['Ada', 'Cy']);
      expect(await where(cond('age', 'Gte', 30))).to.deep.equal(['Ada', 'Cy', 'Eve']);
      expect(await where(cond('age', 'Lt', 30))).to.deep.equal(['Bob', 'Dee']);
      expect(await where(cond('age', 'Lte', 30))).to.deep.equal(['Bob', 'Dee', 'Eve']);
      expect(await where(cond('score', 'Gt', 8.25))).to.deep.equal(['Ada', 'Eve']);
      expect(await where(cond('name', 'Lt', 'C'))).to.deep.equal(['Ada', 'Bob']);
    });

    it('In and NotIn', async () => {
      expect(await where(cond('city', 'In', ['Paris', 'Berlin']))).to.deep.equal(['Bob', 'Dee', 'Eve']);
      expect(await where(cond('city', 'NotIn', ['Paris', 'Berlin']))).to.deep.equal(['Ada', 'Cy']);
      expect(await where(cond('age', 'In', [25, 41]))).to.deep.equal(['Bob', 'Cy', 'Dee']);
      expect(await where(cond('city', 'In', []))).to.deep.equal([]);
    });

    it('Contains on strings and arrays, StartsWith and EndsWith', async () => {
      expect(await where(cond('name', 'Contains', 'e'))).to.deep.equal(['Dee', 'Eve']);
      expect(await where(cond('tags', 'Contains', 'code'))).to.deep.equal(['Ada', 'Dee', 'Eve']);
      expect(await where(cond('city', 'StartsWith', 'Lon'))).to.deep.equal(['Ada', 'Cy']);
      expect(await where(cond('city', 'EndsWith', 'is'))).to.deep.equal(['Bob', 'Eve']);
    });

    it('Exists true and false', async () => {
      expect(await where(cond('nick', 'Exists', true))).to.deep.equal(['Ada', 'Dee']);
      expect(await where(cond('nick', 'Exists', false))).to.deep.equal(['Bob', 'Cy', 'Eve']);
    });
  });

  describe('logical and flat forms', () => {
    it('Logical And, Or and Not', async () => {
      expect(await where(logical('And', cond('city', 'Eq', 'London'), cond('age', 'Gt', 40)))).to.deep.equal(['Cy']);
      expect(await where(logical('Or', cond('city', 'Eq', 'Berlin'), cond('age', 'Gt', 40)))).to.deep.equal([
        'Cy',
        'Dee',
      ]);
      expect(await where(logical('Not', cond('city', 'Eq', 'London')))).to.deep.equal(['Bob', 'Dee', 'Eve']);
      const nested = logical(
        'And',
        logical('Or', cond('city', 'Eq', 'Paris'), cond('city', 'Eq', 'London')),
        logical('Not', cond('age', 'Lt', 30)),
      );
      expect(await where(nested)).to.deep.equal(['Ada', 'Cy', 'Eve']);
    });

    it('the flat back-compat forms', async () => {
      expect(await where({ field: 'city', operator: 'Eq', value: 'Paris' })).to.deep.equal(['Bob', 'Eve']);
      expect(
        await where({
          and: [
            { field: 'city', operator: 'Eq', value: 'Paris' },
            { field: 'age', operator: 'Gt', value: 26 },
          ],
        }),
      ).to.deep.equal(['Eve']);
      expect(
        await where({
          or: [
            { field: 'name', operator: 'Eq', value: 'Ada' },
            { field: 'name', operator: 'Eq', value: 'Cy' },
          ],
        }),
      ).to.deep.equal(['Ada', 'Cy']);
      expect(await where({ not: { field: 'city', operator: 'In', value: ['Paris', 'London'] } })).to.deep.equal([
        'Dee',
      ]);
    });
  });

  describe('sort and paging', () => {
    it('sorts by several keys in priority order', async () => {
      expect(
        await names({
          sort: [
            { field: 'age', ascending: true },
            { field: 'name', ascending: false },
          ],
        }),
      ).to.deep.equal(['Dee', 'Bob', 'Eve', 'Ada', 'Cy']);
      expect(
        await names({
          sort: [
            { field: 'city', ascending: true },
            { field: 'age', ascending: false },
          ],
        }),
      ).to.deep.equal(['Dee', 'Cy', 'Ada', 'Eve', 'Bob']);
    });

    it('sorts DateTimes by instant whatever their offset', async () => {
      expect(await names({ sort: [{ field: 'joined', ascending: true }] })).to.deep.equal([
        'Dee',
        'Ada',
        'Bob',
        'Cy',
        'Eve',
      ]);
    });

    it('applies limit, skip and the offset alias after sorting', async () => {
      const sort = [{ field: 'name', ascending: true }];
      expect(await names({ sort, limit: 2 })).to.deep.equal(['Ada', 'Bob']);
      expect(await names({ sort, skip: 1, limit: 2 })).to.deep.equal(['Bob', 'Cy']);
      expect(await names({ sort, offset: 3 })).to.deep.equal(['Dee', 'Eve']);
      expect(await names({ sort, skip: 10 })).to.deep.equal([]);
      expect(await names({ sort, limit: 0 })).to.deep.equal([]);
      expect(await names({ limit: 100000 })).to.have.length(PEOPLE.length);
    });

    it('pages without a sort in insertion order', async () => {
      expect(await names({ skip: 2, limit: 2 })).to.deep.equal(['Cy', 'Dee']);
    });
  });

  describe('projection', () => {
    it('select_fields keeps only the named fields plus id', async () => {
      const r = await find({ filter: cond('name', 'Eq', 'Ada'), select_fields: ['name', 'age'] });
      expect(Object.keys(r.body[0]).sort()).to.deep.equal(['age', 'id', 'name']);
    });

    it('exclude_fields drops the named fields but never id', async () => {
      const r = await find({ filter: cond('name', 'Eq', 'Ada'), exclude_fields: ['tags', 'joined', 'id'] });
      expect(Object.keys(r.body[0]).sort()).to.deep.equal(['age', 'city', 'dept', 'id', 'name', 'nick', 'score']);
    });
  });

  describe('joins', () => {
    it('joins one collection on foreign_field "id" into a bare array of typed records', async () => {
      const r = await find({
        filter: cond('name', 'In', ['Ada', 'Dee', 'Eve']),
        join: { collections: ['depts'], local_field: 'dept', foreign_field: 'id', as_field: 'department' },
      });
      expect(r.status, r.text).to.equal(200);
      const [ada, dee, eve] = r.body;
      expect(ada.department).to.deep.equal([{ id: 'd1', name: { type: 'String', value: 'Research' } }]);
      expect(dee.department).to.deep.equal([]);
      expect(eve.department).to.deep.equal([]);
      expect(ada.name).to.deep.equal({ type: 'String', value: 'Ada' });
    });

    it('joins several collections into the same array, and keeps the join under select_fields', async () => {
      const r = await find({
        filter: cond('name', 'Eq', 'Ada'),
        select_fields: ['name'],
        join: { collections: ['teams', 'clubs'], local_field: 'name', foreign_field: 'lead', as_field: 'groups' },
      });
      expect(r.status, r.text).to.equal(200);
      expect(Object.keys(r.body[0]).sort()).to.deep.equal(['groups', 'id', 'name']);
      expect(r.body[0].groups.map((g: Record<string, any>) => bare(g))).to.deep.equal([
        { id: 't1', lead: 'Ada', name: 'Core' },
      ]);
      const both = await find({
        filter: cond('name', 'Eq', 'Ada'),
        join: { collections: ['teams', 'clubs'], local_field: 'name', foreign_field: 'name', as_field: 'groups' },
      });
      expect(both.body[0].groups).to.deep.equal([]);
    });

    it('rejects a join into an invalid collection name', async () => {
      expectError(
        await find({ join: { collections: ['__proto__'], local_field: 'dept', foreign_field: 'id', as_field: 'd' } }),
      );
    });
  });

  describe('DateTime ranges', () => {
    it('compares RFC 3339 strings as instants, across offsets and precision', async () => {
      const range = logical(
        'And',
        cond('joined', 'Gte', '2024-01-01T00:00:00Z'),
        cond('joined', 'Lt', '2024-06-30T23:59:59.999Z'),
      );
      expect(await where(range)).to.deep.equal(['Ada', 'Bob', 'Dee']);
      expect(await where(cond('joined', 'Lt', '2024-01-01T01:00:00+00:00'))).to.deep.equal([]);
      expect(await where(cond('joined', 'Lte', '2024-01-01T01:00:00+00:00'))).to.deep.equal(['Dee']);
      expect(await where(cond('joined', 'Gt', '2024-06-30T23:59:59.998999Z'))).to.deep.equal(['Cy', 'Eve']);
      expect(await where(cond('joined', 'Eq', '2024-02-29T22:00:00Z'))).to.deep.equal(['Bob']);
      expect(await where(cond('joined', 'Eq', { type: 'DateTime', value: '2024-01-15T12:00:00+02:00' }))).to.deep.equal(
        ['Ada'],
      );
    });
  });

  describe('bad input', () => {
    async function expectRejected(body: unknown, message?: RegExp): Promise<void> {
      expectError(await find(body), 400, message);
    }

    afterEach(async () => {
      expect(await names({})).to.have.length(PEOPLE.length);
    });

    it('rejects unknown operators, including Regex', async () => {
      await expectRejected({ filter: cond('name', 'Like', 'A%') }, /Unknown operator 'Like'/);
      await expectRejected({ filter: cond('name', 'Regex', '^A') }, /Unknown operator 'Regex'/);
      await expectRejected({ filter: cond('name', 'eq', 'Ada') }, /Unknown operator/);
      await expectRejected({ filter: { field: 'name', operator: 'Regex', value: '^A' } }, /Regex/);
    });

    it('rejects malformed filters', async () => {
      const bad: unknown[] = [
        'name = Ada',
        [],
        3,
        true,
        {},
        { type: 'Condition' },
        { type: 'Condition', content: [] },
        { type: 'Condition', content: { operator: 'Eq', value: 1 } },
        { type: 'Condition', content: { field: 'a', value: 1 } },
        { type: 'Condition', content: { field: '', operator: 'Eq', value: 1 } },
        { type: 'Condition', content: { field: 1, operator: 'Eq', value: 1 } },
        { type: 'Nope', content: {} },
        logical('And'),
        logical('Or'),
        logical('Not'),
        logical('Not', cond('a', 'Eq', 1), cond('b', 'Eq', 2)),
        logical('Xor', cond('a', 'Eq', 1)),
        { type: 'Logical', content: { operator: 'And', expressions: 'x' } },
        cond('age', 'In', 5),
        cond('age', 'Gt', null),
        cond('name', 'Contains', 5),
        cond('nick', 'Exists', 'yes'),
        { and: 'x' },
        { and: [] },
        { not: [] },
        { field: 'a', operator: 'Eq', value: 1, extra: 1 },
        { type: 'Condition', content: { field: 'a', operator: 'Eq', value: 1 }, extra: 1 },
      ];
      for (const filter of bad) {
        const r = await find({ filter });
        expect(r.status, `${JSON.stringify(filter)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
    });

    it('rejects filters nested too deeply', async () => {
      let f: unknown = cond('a', 'Eq', 1);
      for (let i = 0; i < 40; i++) f = logical('Not', f);
      await expectRejected({ filter: f }, /nested deeper/);
    });

    it('rejects unknown top-level keys, negative or fractional limits and skips', async () => {
      await expectRejected({ where: {} }, /Unknown key 'where'/);
      await expectRejected({ limit: -1 }, /limit/);
      await expectRejected({ skip: -5 }, /skip/);
      await expectRejected({ offset: -5 }, /offset/);
      await expectRejected({ limit: 1.5 }, /limit/);
      await expectRejected({ limit: '10' }, /limit/);
      await expectRejected({ skip: 1, offset: 2 }, /Conflicting/);
    });

    it('rejects bad sort, projection and join members', async () => {
      const bad: unknown[] = [
        { sort: 'name' },
        { sort: [{ field: 'name', ascending: 'yes' }] },
        { sort: [{ ascending: true }] },
        { sort: [{ field: 'a', up: true }] },
        { select_fields: 5 },
        { select_fields: [1] },
        { exclude_fields: [''] },
        { join: 'depts' },
        { join: { collections: [], local_field: 'a', foreign_field: 'id', as_field: 'x' } },
        { join: { collections: ['depts'], local_field: 'a', foreign_field: 'id', as_field: 'id' } },
        { join: { collections: ['depts'], local_field: 'a', foreign_field: 'id' } },
        { join: { collections: ['depts'], local_field: 'a', foreign_field: 'id', as_field: 'x', extra: 1 } },
        { bypass_cache: 'yes' },
      ];
      for (const body of bad) {
        const r = await find(body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
    });

    it('rejects non-object bodies', async () => {
      for (const raw of ['[]', '"x"', '42', 'null', 'true']) {
        const r = await t.request('POST', `/api/find/${c}`, undefined, { raw });
        expect(r.status, `${raw}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
    });

    it('rejects malformed JSON and malformed MessagePack bytes', async () => {
      expectError(await t.request('POST', `/api/find/${c}`, undefined, { raw: '{"filter":' }));
      expectError(await t.request('POST', `/api/find/${c}`, undefined, { raw: "{'a':1}" }));
      for (const bytes of [[0xc1], [0x82, 0xa1, 0x61], [0xdf, 0xff, 0xff, 0xff, 0xff], [0x81, 0xc1, 0x01]]) {
        const r = await t.request('POST', `/api/find/${c}`, undefined, { format: 'msgpack', raw: Buffer.from(bytes) });
        expect(r.status, `${bytes}: ${r.text}`).to.equal(400);
        expect(JSON.parse(r.text).error).to.be.a('string');
      }
    });

    it('rejects __proto__ and constructor keys and field names', async () => {
      const raws = [
        '{"__proto__":{"limit":1}}',
        '{"filter":{"__proto__":{"field":"a"}}}',
        '{"filter":{"type":"Condition","content":{"field":"a","operator":"Eq","value":{"__proto__":{"x":1}}}}}',
      ];
      for (const raw of raws) expectError(await t.request('POST', `/api/find/${c}`, undefined, { raw }));
      const bodies: unknown[] = [
        { constructor: { limit: 1 } },
        { filter: cond('__proto__', 'Eq', 1) },
        { filter: cond('constructor', 'Eq', 1) },
        { filter: cond('a.constructor.name', 'Eq', 'Object') },
        { filter: cond('a', 'Eq', { constructor: 1 }) },
        { filter: cond('a', 'In', [{ prototype: 1 }]) },
        { sort: [{ field: '__proto__', ascending: true }] },
        { select_fields: ['constructor'] },
        { exclude_fields: ['__proto__'] },
        { join: { collections: ['depts'], local_field: 'constructor', foreign_field: 'id', as_field: 'x' } },
        { join: { collections: ['depts'], local_field: 'dept', foreign_field: 'id', as_field: '__proto__' } },
      ];
      for (const body of bodies) {
        const r = await find(body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
      expect(({} as Record<string, unknown>).x).to.equal(undefined);
    });

    it('answers 404 {error} for an unknown transaction id', async () => {
      expectError(await t.request('POST', `/api/find/${c}?transaction_id=nope`, {}), 404, /Transaction not found/);
      expectError(await find({ transaction_id: 'nope' }), 404, /Transaction not found/);
    });
  });
});
