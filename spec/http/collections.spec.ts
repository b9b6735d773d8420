/**
 * End-to-end specs for collections, schemas and the trash over real HTTP
 * (product.md Collection, Schema, Trash; protocol.md 2.2).
 * Over 400 lines because it covers every route of protocol.md 2.2 plus
 * validation for each of the sixteen field types, mostly as data tables.
 */
import { expect } from 'chai';
import { ADMIN_KEY, TestServer, type RequestOptions, errorBody } from '../helpers/test-server.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('collections over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  describe('POST /api/collections/{c}', () => {
    it('creates a collection without a schema and answers {status, message}', async () => {
      const r = await call('POST', '/api/collections/plain');
      expect(r.status).to.equal(201);
      expect(r.body).to.include({ status: 'created' });
      expect(r.body.message).to.be.a('string').and.not.empty;
      const info = await call('GET', '/api/collections/plain');
      expect(info.status).to.equal(200);
      expect(info.body.schema.fields).to.deep.equal({});
    });

    it('creates a collection with a schema', async () => {
      const r = await call('POST', '/api/collections/typed', {
        fields: { title: { field_type: 'String', required: true } },
        version: 1,
        bypass_ripple: true,
      });
      expect(r.status).to.equal(201);
      const schema = await call('GET', '/api/schemas/typed');
      expect(schema.body.fields.title).to.include({ field_type: 'String', required: true });
      expect(schema.body.bypass_ripple).to.equal(true);
    });

    it('refuses an existing collection with 409 and a message containing "already exists"', async () => {
      await call('POST', '/api/collections/twice');
      const r = await call('POST', '/api/collections/twice');
      expect(r.status).to.equal(409);
      expect(r.body.error).to.contain('already exists');
    });

    for (const bad of [
      'bad%20name',
      '.hidden',
      '-dash',
      'a%2Fb',
      'x'.repeat(129),
      '__proto__',
      'constructor',
      'caf%C3%A9',
    ]) {
      it(`refuses the invalid name '${bad.slice(0, 20)}' with 400 Invalid collection name`, async () => {
        const r = await call('POST', `/api/collections/${bad}`);
        expect(r.status).to.equal(400);
        expect(errorBody(r)).to.deep.equal({ error: 'Invalid collection name' });
      });
    }

    it('accepts names of letters, digits, underscores, dots and dashes up to 128 characters', async () => {
      for (const name of ['a', 'Orders_2024', 'v1.items', 'x-y', 'n'.repeat(128)]) {
        expect((await call('POST', `/api/collections/${name}`)).status, name).to.equal(201);
      }
    });

    it('rejects a field definition without field_type with the exact message and creates nothing', async () => {
      const r = await call('POST', '/api/collections/nofieldtype', { fields: { a: { required: true } } });
      expect(r.status).to.equal(400);
      expect(r.body.error).to.equal("missing field 'field_type'");
      expect((await call('GET', '/api/collections/nofieldtype')).status).to.equal(404);
    });

    it('rejects a lowercase field_type since type names are case-sensitive', async () => {
      const r = await call('POST', '/api/collections/lower', { fields: { a: { field_type: 'string' } } });
      expect(r.status).to.equal(400);
      expect(r.body.error).to.contain('string');
    });
  });

  describe('GET /api/collections/{c}', () => {
    it('returns the union body: collection, analytics, name, record_count, created_at, schema', async () => {
      await call('POST', '/api/collections/info', { fields: { n: { field_type: 'Integer' } } });
      await call('POST', '/api/insert/info', { n: 1 });
      await call('POST', '/api/insert/info', { n: 2 });
      const r = await call('GET', '/api/collections/info');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('collection', 'analytics', 'name', 'record_count', 'created_at', 'schema');
      expect(r.body.name).to.equal('info');
      expect(r.body.record_count).to.equal(2);
      expect(r.body.created_at).to.match(RFC3339_Z);
      expect(r.body.collection).to.deep.equal(r.body.schema);
      expect(r.body.schema.fields.n.field_type).to.equal('Integer');
      expect(r.body.analytics).to.be.an('object');
    });

    it('counts a collection created implicitly by an insert', async () => {
      await call('POST', '/api/insert/implicit', { a: 1 });
      const r = await call('GET', '/api/collections/implicit');
      expect(r.status).to.equal(200);
      expect(r.body.record_count).to.equal(1);
    });

    it('answers 404 {error} for an unknown collection', async () => {
      const r = await call('GET', '/api/collections/unknown_coll');
      expect(r.status).to.equal(404);
      expect(r.body.error).to.be.a('string');
    });
  });

  describe('GET /api/collections', () => {
    it('lists collection names, and hides internal ones with exclude_internal=true', async () => {
      for (const name of ['visible_one', 'functions__main', 'chat_messages_main', 'chat_configurations_main']) {
        await call('POST', `/api/collections/${name}`);
      }
      const all = await call('GET', '/api/collections');
      expect(all.status).to.equal(200);
      expect(all.body.collections).to.include.members(['visible_one', 'functions__main', 'chat_messages_main']);
      const user = await call('GET', '/api/collections?exclude_internal=true');
      expect(user.body.collections).to.include('visible_one');
      expect(user.body.collections).to.not.include('functions__main');
      expect(user.body.collections).to.not.include('chat_messages_main');
      expect(user.body.collections).to.not.include('chat_configurations_main');
    });
  });

  describe('DELETE /api/collections/{c}', () => {
    it('drops the collection and all its records', async () => {
      const a = await call('POST', '/api/insert/doomed', { x: 1 });
      await call('POST', '/api/insert/doomed', { x: 2 });
      const r = await call('DELETE', '/api/collections/doomed');
      expect(r.status).to.equal(200);
      expect(r.body.status).to.be.a('string');
      expect(r.body.message).to.be.a('string');
      expect((await call('GET', '/api/collections/doomed')).status).to.equal(404);
      expect((await call('GET', `/api/find/doomed/${a.body.id}`)).status).to.equal(404);
      expect((await call('GET', '/api/collections')).body.collections).to.not.include('doomed');
      await call('POST', '/api/collections/doomed');
      expect((await call('GET', '/api/collections/doomed')).body.record_count).to.equal(0);
    });

    it('answers 404 for an unknown collection', async () => {
      expect((await call('DELETE', '/api/collections/never_was')).status).to.equal(404);
    });
  });
});

describe('schemas over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  describe('GET /api/schemas/{c}', () => {
    it('has exactly the protocol shape with every field member present', async () => {
      await call('POST', '/api/collections/shape', {
        fields: {
          title: { field_type: 'String', required: true, min: 1, max: 80, regex: '^[A-Z]' },
          status: { field_type: 'String', enums: ['open', 'done'], default: 'open' },
          body: { field_type: 'String', index: { type: 'text' } },
          sku: { field_type: 'String', unique: true },
        },
      });
      const r = await call('GET', '/api/schemas/shape');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys(
        'fields',
        'version',
        'created_at',
        'last_modified',
        'bypass_ripple',
        'primary_key_alias',
      );
      expect(r.body.version).to.equal(1);
      expect(r.body.created_at).to.match(RFC3339_Z);
      expect(r.body.last_modified).to.match(RFC3339_Z);
      expect(r.body.bypass_ripple).to.equal(false);
      expect(r.body.primary_key_alias).to.equal('id');
      expect(r.body.fields.title).to.deep.equal({
        field_type: 'String',
        default: null,
        unique: false,
        required: true,
        enums: [],
        max: 80,
        min: 1,
        regex: '^[A-Z]',
      });
      expect(r.body.fields.status).to.deep.equal({
        field_type: 'String',
        default: 'open',
        unique: false,
        required: false,
        enums: ['open', 'done'],
        max: null,
        min: null,
        regex: null,
      });
      expect(r.body.fields.sku).to.include({ unique: true });
      expect(r.body.fields.sku).to.not.have.property('index');
      expect(r.body.fields.body.index).to.include({ type: 'text' });
    });

    it('reports an empty field map for a collection without a schema', async () => {
      await call('POST', '/api/collections/schemaless');
      const r = await call('GET', '/api/schemas/schemaless');
      expect(r.status).to.equal(200);
      expect(r.body.fields).to.deep.equal({});
      expect(r.body.primary_key_alias).to.equal('id');
    });

    it('answers 404 for an unknown collection', async () => {
      expect((await call('GET', '/api/schemas/no_such')).status).to.equal(404);
    });
  });

  describe('PUT /api/schemas/{c}', () => {
    it('applies {constraints} as a partial update that keeps unset attributes', async () => {
      await call('POST', '/api/collections/partial', {
        fields: { name: { field_type: 'String', required: true, min: 2 } },
      });
      const before = await call('GET', '/api/schemas/partial');
      t.clock.advance(5000);
      const r = await call('PUT', '/api/schemas/partial', { constraints: { name: { max: 5 } } });
      expect(r.status).to.equal(200);
      expect(r.body.status).to.be.a('string');
      expect(r.body.message).to.be.a('string');
      const after = await call('GET', '/api/schemas/partial');
      expect(after.body.fields.name).to.include({ field_type: 'String', required: true, min: 2, max: 5 });
      expect(after.body.version).to.equal(before.body.version + 1);
      expect(after.body.created_at).to.equal(before.body.created_at);
      expect(Date.parse(after.body.last_modified)).to.be.greaterThan(Date.parse(before.body.last_modified));
    });

    it('affects only later writes: an existing record that violates the new constraint stays readable', async () => {
      await call('POST', '/api/collections/later', { fields: { name: { field_type: 'String' } } });
      const old = await call('POST', '/api/insert/later', { name: 'much too long' });
      expect(old.status).to.equal(201);
      await call('PUT', '/api/schemas/later', { constraints: { name: { max: 4 } } });
      const read = await call('GET', `/api/find/later/${old.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body.name).to.deep.equal({ type: 'String', value: 'much too long' });
      const fresh = await call('POST', '/api/insert/later', { name: 'much too long' });
      expect(fresh.status).to.equal(400);
      expect(fresh.body.details.map((d: { constraint: string }) => d.constraint)).to.deep.equal(['max']);
      expect((await call('POST', '/api/insert/later', { name: 'ok' })).status).to.equal(201);
    });

    it('adds a new field through {constraints} when field_type is given, and refuses one without it', async () => {
      await call('POST', '/api/collections/grow', { fields: { a: { field_type: 'String' } } });
      const missing = await call('PUT', '/api/schemas/grow', { constraints: { b: { min: 1 } } });
      expect(missing.status).to.equal(400);
      expect(missing.body.error).to.equal("missing field 'field_type'");
      const ok = await call('PUT', '/api/schemas/grow', { constraints: { b: { field_type: 'Integer', min: 1 } } });
      expect(ok.status).to.equal(200);
      const schema = await call('GET', '/api/schemas/grow');
      expect(Object.keys(schema.body.fields)).to.have.members(['a', 'b']);
      expect(schema.body.fields.b).to.include({ field_type: 'Integer', min: 1 });
    });

    it('rejects an invalid update and changes nothing', async () => {
      await call('POST', '/api/collections/stable', { fields: { flag: { field_type: 'Boolean' } } });
      const before = await call('GET', '/api/schemas/stable');
      const r = await call('PUT', '/api/schemas/stable', { constraints: { flag: { min: 1 } } });
      expect(r.status).to.equal(400);
      expect((await call('GET', '/api/schemas/stable')).body).to.deep.equal(before.body);
    });

    it('replaces listed field definitions wholesale with the {fields} form and keeps the others', async () => {
      await call('POST', '/api/collections/fieldsform', {
        fields: { name: { field_type: 'String', required: true, min: 2 }, age: { field_type: 'Integer', min: 0 } },
      });
      const r = await call('PUT', '/api/schemas/fieldsform', { fields: { name: { field_type: 'String', max: 3 } } });
      expect(r.status).to.equal(200);
      const schema = await call('GET', '/api/schemas/fieldsform');
      expect(schema.body.fields.name).to.include({ field_type: 'String', required: false, min: null, max: 3 });
      expect(schema.body.fields.age).to.include({ field_type: 'Integer', min: 0 });
      expect((await call('POST', '/api/insert/fieldsform', { name: 'four' })).status).to.equal(400);
      expect((await call('POST', '/api/insert/fieldsform', {})).status).to.equal(201);
    });

    it('clears an attribute set to null and removes a field set to null', async () => {
      await call('POST', '/api/collections/clearing', {
        fields: { a: { field_type: 'String', required: true, max: 3 }, b: { field_type: 'Integer' } },
      });
      expect(
        (await call('PUT', '/api/schemas/clearing', { constraints: { a: { required: null }, b: null } })).status,
      ).to.equal(200);
      const schema = await call('GET', '/api/schemas/clearing');
      expect(Object.keys(schema.body.fields)).to.deep.equal(['a']);
      expect(schema.body.fields.a).to.include({ required: false, max: 3 });
      expect((await call('POST', '/api/insert/clearing', { b: 'no longer an Integer' })).status).to.equal(201);
    });

    it('answers 404 for an unknown collection', async () => {
      expect((await call('PUT', '/api/schemas/no_such', { constraints: {} })).status).to.equal(404);
    });
  });

  describe('validation on insert', () => {
    const TYPES: Array<{ type: string; good: unknown; stored: unknown; bad: unknown; badType: string }> = [
      { type: 'String', good: 'abc', stored: 'abc', bad: 12, badType: 'Integer' },
      { type: 'Integer', good: 7, stored: 7, bad: 1.5, badType: 'Float' },
      { type: 'Float', good: 2, stored: 2, bad: 'x', badType: 'String' },
      { type: 'Number', good: 2.5, stored: 2.5, bad: true, badType: 'Boolean' },
      { type: 'Boolean', good: true, stored: true, bad: 'true', badType: 'String' },
      { type: 'Array', good: [1, 'a'], stored: [1, 'a'], bad: { a: 1 }, badType: 'Object' },
      { type: 'Object', good: { a: { b: 1 } }, stored: { a: { b: 1 } }, bad: [1], badType: 'Array' },
      {
        type: 'DateTime',
        good: '2024-01-02T03:04:05Z',
        stored: '2024-01-02T03:04:05+00:00',
        bad: 'yesterday',
        badType: 'String',
      },
      { type: 'Decimal', good: '12.50', stored: '12.50', bad: 'abc', badType: 'String' },
      {
        type: 'UUID',
        good: '123e4567-e89b-12d3-a456-426614174000',
        stored: '123e4567-e89b-12d3-a456-426614174000',
        bad: 'not-a-uuid',
        badType: 'String',
      },
      { type: 'Vector', good: [0.5, 1], stored: [0.5, 1], bad: ['a'], badType: 'Array' },
      { type: 'Set', good: ['a', 'a', 'b'], stored: ['a', 'b'], bad: 'a', badType: 'String' },
      { type: 'Binary', good: 'AQID', stored: [1, 2, 3], bad: 12, badType: 'Integer' },
      { type: 'Bytes', good: 'AQID', stored: [1, 2, 3], bad: true, badType: 'Boolean' },
      { type: 'Duration', good: 1500, stored: 1500, bad: 'soon', badType: 'String' },
      { type: 'Null', good: null, stored: null, bad: 'x', badType: 'String' },
    ];

    for (const c of TYPES) {
      it(`stores a valid ${c.type} value as ${c.type} and rejects a ${c.badType} with a type detail`, async () => {
        const coll = `type_${c.type.toLowerCase()}`;
        expect(
          (await call('POST', `/api/collections/${coll}`, { fields: { v: { field_type: c.type } } })).status,
        ).to.equal(201);
        const ok = await call('POST', `/api/insert/${coll}`, { v: c.good });
        expect(ok.status, ok.text).to.equal(201);
        const read = await call('GET', `/api/find/${coll}/${ok.body.id}`);
        expect(read.body.v).to.deep.equal({ type: c.type, value: c.stored });
        const bad = await call('POST', `/api/insert/${coll}`, { v: c.bad });
        expect(bad.status).to.equal(400);
        expect(bad.body.details).to.have.length(1);
        expect(bad.body.details[0]).to.include({ field: 'v', constraint: 'type', expected: c.type, actual: c.badType });
        expect((await call('GET', `/api/collections/${coll}`)).body.record_count).to.equal(1);
      });
    }

    it('reports one detail per violated String constraint (min, regex, enums)', async () => {
      await call('POST', '/api/collections/str_opts', {
        fields: { code: { field_type: 'String', min: 3, max: 6, regex: '^[a-z]+$', enums: ['alpha', 'beta'] } },
      });
      const r = await call('POST', '/api/insert/str_opts', { code: 'AB' });
      expect(r.status).to.equal(400);
      expect(r.body.details.map((d: { constraint: string }) => d.constraint)).to.have.members([
        'min',
        'regex',
        'enums',
      ]);
      const long = await call('POST', '/api/insert/str_opts', { code: 'alphabet' });
      expect(long.body.details.map((d: { constraint: string }) => d.constraint)).to.have.members(['max', 'enums']);
      expect((await call('POST', '/api/insert/str_opts', { code: 'beta' })).status).to.equal(201);
    });

    it('checks min, max and enums of Integer, Float and Number fields', async () => {
      await call('POST', '/api/collections/num_opts', {
        fields: {
          i: { field_type: 'Integer', min: 1, max: 10, enums: [1, 5, 10] },
          f: { field_type: 'Float', min: 0.5, max: 1.5 },
          n: { field_type: 'Number', min: -1, max: 1 },
        },
      });
      const low = await call('POST', '/api/insert/num_opts', { i: 0, f: 0.25, n: -2 });
      expect(low.status).to.equal(400);
      expect(
        low.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
      ).to.have.members(['i:min', 'i:enums', 'f:min', 'n:min']);
      const high = await call('POST', '/api/insert/num_opts', { i: 11, f: 2, n: 1.5 });
      expect(
        high.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
      ).to.have.members(['i:max', 'i:enums', 'f:max', 'n:max']);
      const notEnum = await call('POST', '/api/insert/num_opts', { i: 3 });
      expect(notEnum.body.details).to.have.length(1);
      expect(notEnum.body.details[0]).to.include({ field: 'i', constraint: 'enums', actual: 3 });
      expect(notEnum.body.details[0].expected).to.deep.equal([1, 5, 10]);
      expect((await call('POST', '/api/insert/num_opts', { i: 5, f: 1, n: 0.5 })).status).to.equal(201);
    });

    it('bounds the length of Array, Vector and Set fields, counting a Set after deduplication', async () => {
      await call('POST', '/api/collections/len_opts', {
        fields: {
          a: { field_type: 'Array', min: 1, max: 2 },
          v: { field_type: 'Vector', min: 2, max: 2 },
          s: { field_type: 'Set', min: 2 },
        },
      });
      const r = await call('POST', '/api/insert/len_opts', { a: [1, 2, 3], v: [1], s: [7, 7, 7] });
      expect(r.status).to.equal(400);
      expect(
        r.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
      ).to.have.members(['a:max', 'v:min', 's:min']);
      const a = r.body.details.find((d: { field: string }) => d.field === 'a');
      expect(a).to.include({ expected: 2, actual: 3 });
      expect((await call('POST', '/api/insert/len_opts', { a: [], v: [1, 2], s: [1, 2] })).body.details[0]).to.include({
        field: 'a',
        constraint: 'min',
      });
      expect((await call('POST', '/api/insert/len_opts', { a: [1], v: [1, 2], s: [1, 2, 2] })).status).to.equal(201);
    });

    it('bounds DateTime and Decimal fields by value', async () => {
      await call('POST', '/api/collections/range_opts', {
        fields: {
          at: { field_type: 'DateTime', min: '2024-01-01T00:00:00Z', max: '2024-12-31T23:59:59Z' },
          price: { field_type: 'Decimal', min: '0.01', max: '999.99' },
        },
      });
      const r = await call('POST', '/api/insert/range_opts', { at: '2023-06-01T00:00:00Z', price: '1000.00' });
      expect(r.status).to.equal(400);
      expect(
        r.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
      ).to.have.members(['at:min', 'price:max']);
      const late = await call('POST', '/api/insert/range_opts', { at: '2025-01-01T02:00:00+01:00', price: '0.00' });
      expect(
        late.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
      ).to.have.members(['at:max', 'price:min']);
      const ok = await call('POST', '/api/insert/range_opts', { at: '2024-06-01T12:00:00.5Z', price: '19.90' });
      expect(ok.status).to.equal(201);
      const read = await call('GET', `/api/find/range_opts/${ok.body.id}`);
      expect(read.body.price).to.deep.equal({ type: 'Decimal', value: '19.90' });
    });

    it('requires required fields, whether missing or null', async () => {
      await call('POST', '/api/collections/req', { fields: { name: { field_type: 'String', required: true } } });
      const missing = await call('POST', '/api/insert/req', { other: 1 });
      expect(missing.status).to.equal(400);
      expect(missing.body.details).to.have.length(1);
      expect(missing.body.details[0]).to.include({ field: 'name', constraint: 'required' });
      const nulled = await call('POST', '/api/insert/req', { name: null });
      expect(nulled.status).to.equal(400);
      expect(nulled.body.details[0]).to.include({ field: 'name', constraint: 'required' });
      expect((await call('GET', '/api/collections/req')).status).to.equal(200);
      expect((await call('GET', '/api/collections/req')).body.record_count).to.equal(0);
    });

    it('fills an omitted field with its default and keeps a given value', async () => {
      await call('POST', '/api/collections/defaults', {
        fields: {
          status: { field_type: 'String', default: 'open', required: true },
          prio: { field_type: 'Integer', default: 3 },
        },
      });
      const d = await call('POST', '/api/insert/defaults', {});
      expect(d.status).to.equal(201);
      const read = await call('GET', `/api/find/defaults/${d.body.id}`);
      expect(read.body.status).to.deep.equal({ type: 'String', value: 'open' });
      expect(read.body.prio).to.deep.equal({ type: 'Integer', value: 3 });
      const given = await call('POST', '/api/insert/defaults', { status: 'done', prio: 1 });
      const read2 = await call('GET', `/api/find/defaults/${given.body.id}`);
      expect(read2.body.status.value).to.equal('done');
      expect(read2.body.prio.value).to.equal(1);
    });

    it('refuses a second record with the value of a unique field', async () => {
      await call('POST', '/api/collections/uniq', { fields: { email: { field_type: 'String', unique: true } } });
      const first = await call('POST', '/api/insert/uniq', { email: 'a@x.io' });
      expect(first.status).to.equal(201);
      const dup = await call('POST', '/api/insert/uniq', { email: 'a@x.io' });
      expect(dup.status).to.equal(400);
      expect(dup.body.details).to.have.length(1);
      expect(dup.body.details[0]).to.include({ field: 'email', constraint: 'unique', actual: 'a@x.io' });
      expect((await call('POST', '/api/insert/uniq', { email: 'b@x.io' })).status).to.equal(201);
      expect((await call('GET', '/api/collections/uniq')).body.record_count).to.equal(2);
    });

    it(
      'answers the body {error, details:[{field, constraint, expected?, actual?, message}]} with one detail per ' +
        'violation',
      async () => {
        await call('POST', '/api/collections/body_shape', {
          fields: {
            name: { field_type: 'String', required: true },
            age: { field_type: 'Integer', min: 0, max: 150 },
            tag: { field_type: 'String', regex: '^#' },
          },
        });
        const r = await call('POST', '/api/insert/body_shape', { age: 200, tag: 'x' });
        expect(r.status).to.equal(400);
        expect(errorBody(r)).to.have.all.keys('error', 'details');
        expect(r.body.error).to.be.a('string').and.not.empty;
        expect(r.body.details).to.have.length(3);
        for (const d of r.body.details) {
          expect(Object.keys(d)).to.include.members(['field', 'constraint', 'message']);
          expect(['field', 'constraint', 'expected', 'actual', 'message']).to.include.members(Object.keys(d));
          expect(d.message).to.be.a('string').and.not.empty;
        }
        expect(
          r.body.details.map((d: { field: string; constraint: string }) => `${d.field}:${d.constraint}`),
        ).to.have.members(['name:required', 'age:max', 'tag:regex']);
      },
    );

    it('keeps an RFC 3339 string verbatim in a String field', async () => {
      await call('POST', '/api/collections/str_dates', { fields: { stamp: { field_type: 'String' } } });
      const r = await call('POST', '/api/insert/str_dates', {
        stamp: '2024-01-01T00:00:00Z',
        other: '2024-01-01T00:00:00Z',
      });
      const read = await call('GET', `/api/find/str_dates/${r.body.id}`);
      expect(read.body.stamp).to.deep.equal({ type: 'String', value: '2024-01-01T00:00:00Z' });
      expect(read.body.other).to.deep.equal({ type: 'DateTime', value: '2024-01-01T00:00:00+00:00' });
    });

    it('lets undeclared fields through since schemas are open', async () => {
      await call('POST', '/api/collections/open_schema', { fields: { a: { field_type: 'Integer' } } });
      const r = await call('POST', '/api/insert/open_schema', { a: 1, extra: 'free' });
      expect(r.status).to.equal(201);
    });
  });
});

describe('trash over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  beforeEach(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  afterEach(async () => {
    await t.stop();
  });

  /** After moving the clock past the token lifetime the cached admin token is stale. */
  async function freshAdmin(): Promise<RequestOptions> {
    return { token: await t.tokenFor(ADMIN_KEY) };
  }

  it('restores a deleted record with {status:"restored", id, collection}', async () => {
    const ins = await call('POST', '/api/insert/bin', { name: 'kept', n: 3 });
    const before = await call('GET', `/api/find/bin/${ins.body.id}`);
    expect((await call('DELETE', `/api/delete/bin/${ins.body.id}`)).status).to.equal(200);
    expect((await call('GET', `/api/find/bin/${ins.body.id}`)).status).to.equal(404);
    const r = await call('POST', `/api/trash/bin/${ins.body.id}`);
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ status: 'restored', id: ins.body.id, collection: 'bin' });
    const after = await call('GET', `/api/find/bin/${ins.body.id}`);
    expect(after.status).to.equal(200);
    expect(after.body).to.deep.equal(before.body);
  });

  it('restores every trashed record of a collection and reports records_restored', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call('POST', '/api/insert/bulk', { i })).body.id);
    for (const id of ids.slice(0, 3)) await call('DELETE', `/api/delete/bulk/${id}`);
    expect((await call('GET', '/api/collections/bulk')).body.record_count).to.equal(1);
    const r = await call('POST', '/api/trash/bulk');
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ status: 'restored', collection: 'bulk', records_restored: 3 });
    expect((await call('GET', '/api/collections/bulk')).body.record_count).to.equal(4);
    expect((await call('POST', '/api/trash/bulk')).body.records_restored).to.equal(0);
  });

  it('lists the trash a page at a time, the most recently deleted first, with each record as it was', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call('POST', '/api/insert/bulk', { i })).body.id);
    for (const id of ids) {
      await call('DELETE', `/api/delete/bulk/${id}`);
      await t.clock.advance(1000);
    }
    const first = await call('GET', '/api/trash/bulk?limit=2');
    expect(first.status).to.equal(200);
    expect(first.body.total).to.equal(5);
    expect(first.body.records.map((r: { id: string }) => r.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.body.records[0].record.i).to.deep.equal({ type: 'Integer', value: 4 });
    expect(Date.parse(first.body.records[0].deleted_at)).to.be.greaterThan(
      Date.parse(first.body.records[1].deleted_at),
    );
    const last = await call('GET', '/api/trash/bulk?limit=2&skip=4');
    expect(last.body.records.map((r: { id: string }) => r.id)).to.deep.equal([ids[0]]);
    expect((await call('GET', '/api/trash/bulk?skip=9')).body.records).to.deep.equal([]);
    expect((await call('GET', '/api/trash/bulk?limit=1001')).status).to.equal(400);
    expect((await call('GET', '/api/trash/bulk?skip=-1')).status).to.equal(400);
    const reader = await call('POST', '/api/auth/keys', { collection_permissions: { bulk: ['read'] } });
    const token = await t.tokenFor(reader.body.key);
    expect((await call('GET', '/api/trash/bulk', undefined, { token })).status).to.equal(403);
  });

  it('answers 404 for a record that is not in the trash and for an unknown collection', async () => {
    const live = await call('POST', '/api/insert/bin', { a: 1 });
    expect((await call('POST', '/api/trash/bin/never-deleted')).status).to.equal(404);
    expect((await call('POST', `/api/trash/bin/${live.body.id}`)).status).to.equal(404);
    expect((await call('POST', '/api/trash/ghost/some-id')).status).to.equal(404);
    const coll = await call('POST', '/api/trash/ghost');
    expect(coll.status).to.equal(404);
    expect(coll.body.error).to.be.a('string');
  });

  it('refuses to restore over a live record with the same id', async () => {
    await call('POST', '/api/insert/bin', { id: 'fixed', v: 1 });
    await call('DELETE', '/api/delete/bin/fixed');
    await call('POST', '/api/insert/bin', { id: 'fixed', v: 2 });
    const r = await call('POST', '/api/trash/bin/fixed');
    expect(r.status).to.equal(409);
    expect((await call('GET', '/api/find/bin/fixed')).body.v.value).to.equal(2);
  });

  it('purges records deleted 30 days ago so they can no longer be restored', async () => {
    const ins = await call('POST', '/api/insert/bin', { a: 1 });
    await call('DELETE', `/api/delete/bin/${ins.body.id}`);
    t.clock.advance(30 * DAY_MS + 1);
    expect(await t.server.db.trash.purgeExpired()).to.equal(1);
    const admin = await freshAdmin();
    expect((await call('POST', `/api/trash/bin/${ins.body.id}`, undefined, admin)).status).to.equal(404);
    expect((await call('POST', '/api/trash/bin', undefined, admin)).body.records_restored).to.equal(0);
  });

  it('keeps records deleted 29 days ago restorable', async () => {
    const ins = await call('POST', '/api/insert/bin', { a: 1 });
    await call('DELETE', `/api/delete/bin/${ins.body.id}`);
    t.clock.advance(29 * DAY_MS);
    expect(await t.server.db.trash.purgeExpired()).to.equal(0);
    const admin = await freshAdmin();
    const r = await call('POST', `/api/trash/bin/${ins.body.id}`, undefined, admin);
    expect(r.status).to.equal(200);
    expect(r.body.status).to.equal('restored');
    expect((await call('GET', `/api/find/bin/${ins.body.id}`, undefined, admin)).status).to.equal(200);
  });

  it('forgets the trash of a dropped collection', async () => {
    const ins = await call('POST', '/api/insert/gone', { a: 1 });
    await call('DELETE', `/api/delete/gone/${ins.body.id}`);
    await call('DELETE', '/api/collections/gone');
    await call('POST', '/api/collections/gone');
    expect((await call('POST', `/api/trash/gone/${ins.body.id}`)).status).to.equal(404);
    expect((await call('POST', '/api/trash/gone')).body.records_restored).to.equal(0);
  });
});
