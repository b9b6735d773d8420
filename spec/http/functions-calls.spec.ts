import { expect } from 'chai';
import { bare, TestServer } from '../helpers/test-server.js';

describe('HTTP stored functions: call rules, transactions, routes, limits, hostile definitions', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await TestServer.start();
  });
  afterEach(async () => {
    await s.stop();
  });

  const save = (def: Record<string, unknown>) => s.saveFunction(def);
  const call = (label: string, params: unknown = {}) => s.callFunction(label, params);
  const typedFind = async (collection: string) =>
    (await s.request('POST', `/api/find/${collection}`, {})).body as any[];

  describe('call rules', () => {
    it('keeps JSON types of whole-placeholder strings and typed wrappers of Parameter refs (rule 4)', async () => {
      await save({
        label: 'typed',
        parameters: { n: { required: true }, doc: { required: true }, total: { required: true } },
        functions: [
          {
            type: 'Insert',
            collection: 't',
            record: {
              n: '{{n}}',
              doc: { type: 'Parameter', name: 'doc' },
              total: { type: 'Decimal', value: '{{total}}' },
              text: 'n={{n}}',
            },
          },
        ],
      });
      const r = await call('typed', { n: 7, doc: { type: 'DateTime', value: '2026-03-04T05:06:07Z' }, total: '19.99' });
      expect(r.status).to.equal(200);
      const [rec] = await typedFind('t');
      expect(rec.n).to.deep.equal({ type: 'Integer', value: 7 });
      expect(rec.doc.type).to.equal('DateTime');
      expect(rec.total).to.deep.equal({ type: 'Decimal', value: '19.99' });
      expect(rec.text).to.deep.equal({ type: 'String', value: 'n=7' });
    });

    it('does not check parameter types (rule 3)', async () => {
      await save({
        label: 'any',
        parameters: { v: { required: true, param_type: 'Integer' } },
        functions: [{ type: 'Insert', collection: 'a', record: { v: '{{v}}' } }],
      });
      expect((await call('any', { v: 'not a number' })).status).to.equal(200);
    });

    it('turns a Return status_code into the HTTP status, not a body member (rule 6)', async () => {
      await save({
        label: 'ret',
        parameters: { who: { required: false, default: 'world' } },
        functions: [{ type: 'Return', fields: { hello: '{{who}}' }, status_code: 201 }],
      });
      const r = await call('ret');
      expect(r.status).to.equal(201);
      expect(r.body).to.deep.equal({ hello: 'world' });
    });

    it('stops at the first failing step without rollback when not transactional (rule 7)', async () => {
      await save({
        label: 'half',
        functions: [
          { type: 'Insert', collection: 'h', record: { a: 1 } },
          { type: 'Insert', collection: '-bad', record: {} },
        ],
      });
      const r = await call('half');
      expect(r.status).to.equal(400);
      expect(r.body).to.include({ error: true, operation_index: 1, operation_type: 'Insert' });
      expect(await typedFind('h')).to.have.length(1);
    });

    it('bounds cross-function calls by max_function_call_depth, configurable 2-256 (rule 8)', async () => {
      expect((await s.request('PUT', '/api/config', { max_function_call_depth: 1 })).status).to.equal(400);
      expect((await s.request('PUT', '/api/config', { max_function_call_depth: 3 })).status).to.equal(200);
      await save({ label: 'ping', functions: [{ type: 'CallFunction', function_label: 'pong' }] });
      await save({ label: 'pong', functions: [{ type: 'CallFunction', function_label: 'ping' }] });
      const r = await call('ping');
      expect(r.status).to.equal(400);
      expect(r.body).to.include({
        error: true,
        operation_type: 'CallFunction',
        message: 'Maximum function call depth (3) exceeded',
      });
    });

    it('runs steps with instance-wide rights for a key without access to the collection (rule 9)', async () => {
      const limited = await s.userToken({
        name: 'limited',
        collection_permissions: { other: { read: true, write: true } },
      });
      await save({ label: 'write_secret', functions: [{ type: 'Insert', collection: 'secret', record: { x: 1 } }] });
      expect((await s.request('POST', '/api/insert/secret', { x: 2 }, { token: limited })).status).to.equal(403);
      expect((await s.request('POST', '/api/functions/write_secret', {}, { token: limited })).status).to.equal(200);
    });
  });

  describe('transactional functions', () => {
    const tx = { enabled: true, auto_rollback: true, isolation_level: 'Serializable' };

    it('commits every write on success and discards them all on a step error', async () => {
      await save({
        label: 'ok',
        transaction_config: tx,
        functions: [
          { type: 'Insert', collection: 'x', record: { n: 1 } },
          { type: 'Insert', collection: 'x', record: { n: 2 } },
        ],
      });
      await save({
        label: 'ko',
        transaction_config: tx,
        functions: [
          { type: 'Insert', collection: 'x', record: { n: 3 } },
          { type: 'Insert', collection: '-bad', record: {} },
        ],
      });
      expect((await call('ok')).status).to.equal(200);
      const failed = await call('ko');
      expect(failed.status).to.equal(400);
      expect(failed.body).to.include({ error: true, operation_index: 1 });
      expect((await typedFind('x')).map((r) => bare(r).n).sort()).to.deep.equal([1, 2]);
      expect((await s.request('GET', '/api/transactions')).body).to.satisfy(
        (b: any) => (Array.isArray(b) ? b : (b.transactions ?? [])).length === 0,
      );
    });

    it('answers 409 when a plain writer commits a conflicting record first, and applies nothing', async () => {
      await save({
        label: 'racer',
        transaction_config: tx,
        functions: [
          { type: 'Insert', collection: 'r', record: { id: 'same', by: 'function' } },
          { type: 'Insert', collection: 'r', record: { other: true } },
          { type: 'Sleep', duration_ms: 150 },
        ],
      });
      const racing = call('racer');
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect((await s.request('POST', '/api/insert/r', { id: 'same', by: 'plain' })).status).to.equal(201);
      const r = await racing;
      expect(r.status).to.equal(409);
      const rows = (await typedFind('r')).map(bare);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ by: 'plain' });
    });

    it('refuses savepoint steps outside a transactional function and requires auto_rollback, at save', async () => {
      const sp = await s.request('POST', '/api/functions', {
        label: 'sp',
        name: 'sp',
        functions: [{ type: 'CreateSavepoint', name: 'a' }],
      });
      expect(sp.status).to.equal(400);
      const noAuto = await s.request('POST', '/api/functions', {
        label: 'na',
        name: 'na',
        transaction_config: { enabled: true },
        functions: [],
      });
      expect(noAuto.status).to.equal(400);
      expect(noAuto.body.error).to.match(/auto_rollback/);
    });
  });

  describe('path-routed functions', () => {
    it('serves a function under /api/route with path parameters, fewest placeholders winning, body overriding', async () => {
      await save({
        label: 'user_by_id',
        http_method: 'GET',
        http_path: '/users/:id',
        functions: [{ type: 'Return', fields: { route: 'by id', id: '{{id}}' } }],
      });
      await save({
        label: 'user_me',
        http_method: 'GET',
        http_path: '/users/me',
        functions: [{ type: 'Return', fields: { route: 'me' } }],
      });
      await save({
        label: 'user_post',
        http_method: 'POST',
        http_path: '/users/:id',
        parameters: { note: { required: false, default: '' } },
        functions: [{ type: 'Return', fields: { id: '{{id}}', note: '{{note}}' }, status_code: 202 }],
      });
      expect((await s.request('GET', '/api/route/users/42')).body).to.deep.equal({ route: 'by id', id: '42' });
      expect((await s.request('GET', '/api/route/users/me')).body).to.deep.equal({ route: 'me' });
      const posted = await s.request('POST', '/api/route/users/7', { id: 'from-body', note: 'n' });
      expect(posted.status).to.equal(202);
      expect(posted.body).to.deep.equal({ id: 'from-body', note: 'n' });
      expect((await s.request('DELETE', '/api/route/users/7')).status).to.equal(404);
      expect((await s.request('GET', '/api/route/users/7/extra')).status).to.equal(404);
      expect((await s.request('GET', '/api/route/users/42', undefined, { token: null })).status).to.equal(401);
    });
  });

  describe('limits', () => {
    it('ends a runaway Parallel fan-out with a clear step error and stays responsive', async () => {
      await s.request('PUT', '/api/config', { function_max_steps: 2000, max_function_call_depth: 64 });
      await save({
        label: 'bomb',
        functions: [
          {
            type: 'Parallel',
            functions: [
              { type: 'CallFunction', function_label: 'bomb' },
              { type: 'CallFunction', function_label: 'bomb' },
            ],
          },
        ],
      });
      const pending = call('bomb');
      const health = await s.request('GET', '/api/health', undefined, { token: null });
      expect(health.status).to.equal(200);
      const r = await pending;
      expect(r.status).to.equal(400);
      expect(r.body.error).to.equal(true);
      expect(r.body.message).to.equal('Function call exceeded 2000 executed steps');
    });

    it('bounds the working records a call may hold', async () => {
      await s.request('POST', '/api/batch/insert/many', {
        inserts: Array.from({ length: 30 }, (_, i) => ({ data: { i } })),
      });
      await s.request('PUT', '/api/config', { function_max_records: 20 });
      await save({ label: 'all', functions: [{ type: 'FindAll', collection: 'many' }] });
      const r = await call('all');
      expect(r.status).to.equal(413);
      expect(r.body).to.include({ operation_type: 'FindAll', message: 'Function call exceeded 20 working records' });
    });

    it('ends a call past its time limit', async () => {
      await s.request('PUT', '/api/config', { function_timeout_ms: 50 });
      await save({ label: 'slow', functions: [{ type: 'Sleep', duration_ms: 10_000 }] });
      const r = await call('slow');
      expect(r.status).to.equal(504);
      expect(r.body).to.include({ operation_type: 'Sleep', message: 'Function call exceeded its time limit of 50 ms' });
    });
  });

  describe('hostile definitions', () => {
    it('refuses prototype keys as members, placeholders, parameter names and paths', async () => {
      const hostile = [
        { label: 'h1', name: 'h', functions: [{ type: 'Insert', collection: 'c', record: { constructor: 1 } }] },
        {
          label: 'h2',
          name: 'h',
          functions: [{ type: 'Insert', collection: 'c', record: { a: '{{constructor.name}}' } }],
        },
        { label: 'h3', name: 'h', parameters: { prototype: { required: false } }, functions: [] },
        { label: 'h4', name: 'h', http_method: 'GET', http_path: '/x/:__proto__', functions: [] },
        {
          label: 'h5',
          name: 'h',
          functions: [
            { type: 'If', condition: { type: 'FieldExists', value: { field: 'a.__proto__' } }, then_functions: [] },
          ],
        },
        { label: 'h6', name: 'h', functions: [{ type: 'Validate', schema: { type: 'string', pattern: '(a+)+\\1' } }] },
      ];
      for (const def of hostile) {
        const r = await s.request('POST', '/api/functions', def);
        expect(r.status, JSON.stringify(def)).to.equal(400);
      }
      const raw = '{"label":"h7","name":"h","functions":[],"__proto__":{"polluted":true}}';
      expect((await s.request('POST', '/api/functions', undefined, { raw })).status).to.equal(400);
      expect(({} as any).polluted).to.equal(undefined);
    });

    it('refuses unknown parameters named like prototype keys at call time', async () => {
      await save({ label: 'plain', functions: [] });
      expect((await call('plain', { constructor: 1 })).status).to.equal(400);
      expect((await call('plain', { toString: 'x' })).status).to.equal(400);
      expect((await s.request('GET', '/api/functions/constructor')).status).to.equal(404);
    });

    it('keeps the definition records admin-only', async () => {
      const user = await s.userToken();
      await save({ label: 'f', functions: [] });
      expect((await s.request('POST', '/api/find/__functions', {}, { token: user })).status).to.equal(403);
      const forged = { label: 'evil', document: '{"definition":{"label":"evil","name":"e","functions":[]}}' };
      expect((await s.request('POST', '/api/insert/__functions', forged, { token: user })).status).to.equal(403);
    });
  });
});
