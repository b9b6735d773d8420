/**
 * End-to-end specs of the batch routes (product.md Batch; protocol.md 2.6):
 * insert, update and delete over JSON bodies and the Rust client's positional
 * MessagePack arrays, the 201/200/207/400 statuses with their
 * `{successful, failed}` body, the size limit, the 503 concurrency ceiling,
 * `bypass_ripple` in every position, staging with `?transaction_id=`, and
 * malformed input, which is always a 400 and never a 500. Above 400 lines
 * because the three routes share one status and body contract.
 */
import { expect } from 'chai';
import { encode as mpEncode } from '@msgpack/msgpack';
import type { LoggedBatch } from '../../lib/engine/index.js';
import type { Effect } from '../../lib/engine/write/effects.js';
import { bare, TestServer, type Reply, type RequestOptions, errorBody } from '../helpers/test-server.js';

let counter = 0;
const fresh = (prefix = 'batch'): string => `${prefix}_${++counter}`;

function expectBatchBody(r: Reply, status: number, ok: number, failed: number): void {
  expect(r.status, r.text.slice(0, 500)).to.equal(status);
  expect(r.body).to.have.all.keys('successful', 'failed');
  expect(r.body.successful, r.text.slice(0, 500)).to.be.an('array').with.length(ok);
  expect(r.body.failed, r.text.slice(0, 500)).to.be.an('array').with.length(failed);
  for (const id of r.body.successful) expect(id).to.be.a('string').and.not.empty;
  for (const f of r.body.failed) {
    expect(f).to.have.all.keys('id', 'error');
    expect(f.error).to.be.a('string').and.not.empty;
  }
}

function expectRejected(r: Reply): void {
  expect(r.status, r.text.slice(0, 500)).to.equal(400);
  expect(r.headers.get('content-type')).to.contain('application/json');
  const hasError = typeof r.body?.error === 'string' && r.body.error.length > 0;
  const allFailed = Array.isArray(r.body?.failed) && r.body.failed.length > 0 && r.body.successful.length === 0;
  expect(hasError || allFailed, r.text.slice(0, 500)).to.equal(true);
}

describe('http batch routes', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  const insertBatch = (c: string, body: unknown, opts?: RequestOptions, query = '') =>
    t.request('POST', `/api/batch/insert/${c}${query}`, body, opts);
  const updateBatch = (c: string, body: unknown, opts?: RequestOptions, query = '') =>
    t.request('PUT', `/api/batch/update/${c}${query}`, body, opts);
  const deleteBatch = (c: string, body: unknown, opts?: RequestOptions, query = '') =>
    t.request('DELETE', `/api/batch/delete/${c}${query}`, body, opts);

  async function count(c: string): Promise<number> {
    const r = await t.request('GET', `/api/${c}/count`);
    expect(r.status, r.text).to.equal(200);
    return r.body.count;
  }

  async function get(c: string, id: string, tx?: string): Promise<Reply> {
    return t.request('GET', `/api/find/${c}/${encodeURIComponent(id)}${tx ? `?transaction_id=${tx}` : ''}`);
  }

  async function seed(c: string, n: number): Promise<string[]> {
    const r = await insertBatch(c, {
      inserts: Array.from({ length: n }, (_, i) => ({ data: { n: i, name: `r${i}` } })),
    });
    expectBatchBody(r, 201, n, 0);
    return r.body.successful;
  }

  async function setConfig(body: Record<string, unknown>): Promise<void> {
    const r = await t.request('PUT', '/api/config', body);
    expect(r.status, r.text).to.equal(200);
  }

  /** Captures the logged batches written while `fn` runs. */
  async function logged(fn: () => Promise<unknown>): Promise<LoggedBatch[]> {
    const seen: LoggedBatch[] = [];
    let on = true;
    t.server.db.onCommit((b) => {
      if (on) seen.push(b);
    });
    try {
      await fn();
    } finally {
      on = false;
    }
    return seen;
  }

  const recordEffects = (batches: LoggedBatch[], c: string) =>
    batches
      .flatMap((b) => b.effects)
      .filter(
        (e): e is Extract<Effect, { kind: 'put' | 'delete' }> =>
          (e.kind === 'put' || e.kind === 'delete') && e.collection === c,
      );

  describe('POST /api/batch/insert/{c}', () => {
    it('inserts every record, answers 201 and lists the new ids in request order', async () => {
      const c = fresh();
      const r = await insertBatch(c, {
        inserts: [{ data: { n: 1 } }, { data: { n: 2 } }, { data: { n: 3, id: 'mine' } }],
      });
      expectBatchBody(r, 201, 3, 0);
      expect(r.body.successful[2]).to.equal('mine');
      for (const [i, id] of (r.body.successful as string[]).entries()) {
        const rec = await get(c, id);
        expect(rec.status).to.equal(200);
        expect(bare(rec.body)).to.include({ id, n: i + 1 });
      }
      expect(await count(c)).to.equal(3);
    });

    it('answers 207 listing schema violations in failed while the valid records are inserted', async () => {
      const c = fresh();
      const created = await t.request('POST', `/api/collections/${c}`, {
        fields: { name: { field_type: 'String', required: true } },
      });
      expect(created.status, created.text).to.equal(201);
      const r = await insertBatch(c, {
        inserts: [{ data: { name: 'a' } }, { data: { other: 1 } }, { data: { name: 'b' } }, { data: { name: 7 } }],
      });
      expectBatchBody(r, 207, 2, 2);
      expect(r.body.failed[0].id).to.equal(null);
      expect(r.body.failed[0].error).to.match(/name/);
      expect(await count(c)).to.equal(2);
      const names = await Promise.all(
        (r.body.successful as string[]).map(async (id) => bare((await get(c, id)).body).name),
      );
      expect(names).to.deep.equal(['a', 'b']);
    });

    it('answers 400 with the {successful, failed} body when every insert fails', async () => {
      const c = fresh();
      await t.request('POST', `/api/collections/${c}`, { fields: { name: { field_type: 'String', required: true } } });
      const r = await insertBatch(c, { inserts: [{ data: {} }, { data: { name: null } }] });
      expectBatchBody(r, 400, 0, 2);
      expect(await count(c)).to.equal(0);
    });

    it('rejects the second of two inserts with the same id in one batch and keeps the first', async () => {
      const c = fresh();
      const r = await insertBatch(c, {
        inserts: [{ data: { id: 'dup', v: 'first' } }, { data: { id: 'dup', v: 'second' } }, { data: { v: 'other' } }],
      });
      expectBatchBody(r, 207, 2, 1);
      expect(r.body.successful[0]).to.equal('dup');
      expect(r.body.failed[0].id).to.equal('dup');
      expect(r.body.failed[0].error).to.match(/already exists/);
      expect(bare((await get(c, 'dup')).body).v).to.equal('first');
      expect(await count(c)).to.equal(2);
    });

    it('reports an id that already exists in the collection as a failed item', async () => {
      const c = fresh();
      await insertBatch(c, { inserts: [{ data: { id: 'taken', v: 1 } }] });
      const r = await insertBatch(c, { inserts: [{ data: { id: 'taken', v: 2 } }, { data: { id: 'free', v: 3 } }] });
      expectBatchBody(r, 207, 1, 1);
      expect(r.body.failed[0]).to.deep.equal({ id: 'taken', error: r.body.failed[0].error });
      expect(bare((await get(c, 'taken')).body).v).to.equal(1);
    });

    it('inserts a batch of 10,000 records in one request', async function () {
      this.timeout(60_000);
      const c = fresh();
      const inserts = Array.from({ length: 10_000 }, (_, i) => ({
        data: { n: i, label: `item ${i}`, tags: ['a', 'b'] },
      }));
      const r = await insertBatch(c, { inserts });
      expectBatchBody(r, 201, 10_000, 0);
      expect(new Set(r.body.successful).size).to.equal(10_000);
      expect(await count(c)).to.equal(10_000);
      expect(bare((await get(c, r.body.successful[9_999])).body).n).to.equal(9_999);
    });

    it('answers 201 with empty lists for an empty batch', async () => {
      const r = await insertBatch(fresh(), { inserts: [] });
      expectBatchBody(r, 201, 0, 0);
    });
  });

  describe('PUT /api/batch/update/{c}', () => {
    it('merges every update and answers 200 with the ids', async () => {
      const c = fresh();
      const ids = await seed(c, 3);
      const r = await updateBatch(c, { updates: ids.map((id, i) => ({ id, data: { n: i * 10, extra: true } })) });
      expectBatchBody(r, 200, 3, 0);
      expect(r.body.successful).to.deep.equal(ids);
      const rec = bare((await get(c, ids[2]!)).body);
      expect(rec).to.include({ n: 20, extra: true, name: 'r2' });
    });

    it('answers 207 when some ids do not exist and 400 when none do', async () => {
      const c = fresh();
      const ids = await seed(c, 2);
      const partial = await updateBatch(c, {
        updates: [
          { id: ids[0], data: { n: 99 } },
          { id: 'missing', data: { n: 1 } },
        ],
      });
      expectBatchBody(partial, 207, 1, 1);
      expect(partial.body.failed[0]).to.deep.equal({ id: 'missing', error: 'Record not found' });
      expect(bare((await get(c, ids[0]!)).body).n).to.equal(99);
      const none = await updateBatch(c, {
        updates: [
          { id: 'nope1', data: { n: 1 } },
          { id: 'nope2', data: { n: 1 } },
        ],
      });
      expectBatchBody(none, 400, 0, 2);
    });

    it('reports an update that breaks the schema in failed and applies the others', async () => {
      const c = fresh();
      await t.request('POST', `/api/collections/${c}`, { fields: { name: { field_type: 'String', required: true } } });
      const ids = await seed(c, 2);
      const r = await updateBatch(c, {
        updates: [
          { id: ids[0], data: { name: 5 } },
          { id: ids[1], data: { name: 'ok' } },
        ],
      });
      expectBatchBody(r, 207, 1, 1);
      expect(r.body.failed[0].id).to.equal(ids[0]);
      expect(bare((await get(c, ids[0]!)).body).name).to.equal('r0');
      expect(bare((await get(c, ids[1]!)).body).name).to.equal('ok');
    });

    it('applies two updates of the same record in one batch in order', async () => {
      const c = fresh();
      const [id] = await seed(c, 1);
      const r = await updateBatch(c, {
        updates: [
          { id, data: { a: 1 } },
          { id, data: { b: 2, a: 3 } },
        ],
      });
      expectBatchBody(r, 200, 2, 0);
      expect(bare((await get(c, id!)).body)).to.include({ a: 3, b: 2 });
    });
  });

  describe('DELETE /api/batch/delete/{c}', () => {
    it('deletes the records named in a JSON body and answers 200', async () => {
      const c = fresh();
      const ids = await seed(c, 4);
      const r = await deleteBatch(c, { deletes: ids.slice(0, 3).map((id) => ({ id })) });
      expectBatchBody(r, 200, 3, 0);
      expect(r.body.successful).to.deep.equal(ids.slice(0, 3));
      expect((await get(c, ids[0]!)).status).to.equal(404);
      expect(await count(c)).to.equal(1);
    });

    it('answers 207 for a partial delete and 400 when nothing was deleted', async () => {
      const c = fresh();
      const ids = await seed(c, 1);
      const partial = await deleteBatch(c, { deletes: [{ id: ids[0] }, { id: 'ghost' }] });
      expectBatchBody(partial, 207, 1, 1);
      expect(partial.body.failed[0].id).to.equal('ghost');
      const none = await deleteBatch(c, { deletes: [{ id: ids[0] }] });
      expectBatchBody(none, 400, 0, 1);
    });

    it('deletes a record once when its id appears twice in one batch', async () => {
      const c = fresh();
      const ids = await seed(c, 2);
      const r = await deleteBatch(c, { deletes: [{ id: ids[0] }, { id: ids[0] }] });
      expectBatchBody(r, 207, 1, 1);
      expect(await count(c)).to.equal(1);
    });
  });

  describe('MessagePack bodies', () => {
    it('accepts the Rust positional insert body [[[record, bypass], ...]] and answers in MessagePack', async () => {
      const c = fresh();
      const r = await insertBatch(
        c,
        [
          [
            [{ n: 1 }, null],
            [{ n: 2, id: 'pos' }, true],
            [{ n: 3 }, false],
          ],
        ],
        { format: 'msgpack' },
      );
      expect(r.headers.get('content-type')).to.contain('application/msgpack');
      expectBatchBody(r, 201, 3, 0);
      expect(r.body.successful[1]).to.equal('pos');
      expect(await count(c)).to.equal(3);
    });

    it('accepts the Rust positional update body [[[id, record, bypass], ...]]', async () => {
      const c = fresh();
      const ids = await seed(c, 2);
      const r = await updateBatch(
        c,
        [
          [
            [ids[0], { n: 100 }, null],
            [ids[1], { n: 200 }, true],
          ],
        ],
        { format: 'msgpack' },
      );
      expectBatchBody(r, 200, 2, 0);
      expect(bare((await get(c, ids[1]!)).body).n).to.equal(200);
    });

    it('accepts the Rust positional delete body [[[id, bypass], ...]]', async () => {
      const c = fresh();
      const ids = await seed(c, 3);
      const r = await deleteBatch(
        c,
        [
          [
            [ids[0], null],
            [ids[1], true],
          ],
        ],
        { format: 'msgpack' },
      );
      expectBatchBody(r, 200, 2, 0);
      expect(await count(c)).to.equal(1);
    });

    // Skipped: bug in lib/http/dispatch.ts. A WithStatus body is encoded per Accept whatever its status, so an
    // all-failed batch (400) sent with Accept: application/msgpack comes back as MessagePack; on non-2xx every
    // client reads the body as text (protocol.md 1.4 rule 3, 1.5), so the Rust client shows bytes, not the failures.
    it(
      'answers an all-failed batch in JSON even when MessagePack is accepted, since clients read non-2xx bodies as ' +
        'text',
      async () => {
        const r = await updateBatch(fresh(), [[['missing', { a: 1 }, null]]], { format: 'msgpack' });
        expect(r.status).to.equal(400);
        expect(r.headers.get('content-type')).to.contain('application/json');
        expect(JSON.parse(r.text)).to.deep.equal({
          successful: [],
          failed: [{ id: 'missing', error: 'Record not found' }],
        });
      },
    );

    it('accepts the map form over MessagePack and reports partial failure as 207', async () => {
      const c = fresh();
      const ids = await seed(c, 1);
      const r = await updateBatch(
        c,
        {
          updates: [
            { id: ids[0], data: { n: 5 } },
            { id: 'missing', data: { n: 6 } },
          ],
        },
        { format: 'msgpack' },
      );
      expect(r.headers.get('content-type')).to.contain('application/msgpack');
      expectBatchBody(r, 207, 1, 1);
    });
  });

  describe('limits', () => {
    afterEach(async () => {
      await setConfig({ max_batch_size: 10_000, max_concurrent_batches: 64 });
    });

    it('rejects a request above max_batch_size with 400 before writing anything', async () => {
      await setConfig({ max_batch_size: 5 });
      const c = fresh();
      const six = Array.from({ length: 6 }, (_, i) => ({ data: { n: i } }));
      const r = await insertBatch(c, { inserts: six });
      expect(r.status, r.text).to.equal(400);
      expect(r.body.error).to.match(/maximum batch size of 5/);
      expect(await count(c)).to.equal(0);
      expectBatchBody(await insertBatch(c, { inserts: six.slice(0, 5) }), 201, 5, 0);
    });

    it('applies max_batch_size to updates and deletes too, leaving the records untouched', async () => {
      const c = fresh();
      const ids = await seed(c, 6);
      await setConfig({ max_batch_size: 5 });
      const up = await updateBatch(c, { updates: ids.map((id) => ({ id, data: { n: -1 } })) });
      expect(up.status, up.text).to.equal(400);
      const del = await deleteBatch(c, [[ids.map((id) => [id, null])]], { format: 'msgpack' });
      expect(del.status, del.text).to.equal(400);
      expect(await count(c)).to.equal(6);
      expect(bare((await get(c, ids[0]!)).body).n).to.equal(0);
    });

    it('answers 503 {error, active_operations, max_concurrent, retry_after_seconds} past max_concurrent_batches', async function () {
      this.timeout(120_000);
      await setConfig({ max_concurrent_batches: 1 });
      const c = fresh();
      const inserts = Array.from({ length: 2_000 }, (_, i) => ({ data: { n: i, pad: 'x'.repeat(40) } }));
      let busy: Reply | undefined;
      let accepted = 0;
      for (let round = 0; round < 20 && !busy; round++) {
        const replies = await Promise.all(Array.from({ length: 6 }, () => insertBatch(c, { inserts })));
        for (const r of replies) {
          if (r.status === 503) busy ??= r;
          else {
            expectBatchBody(r, 201, 2_000, 0);
            accepted += 1;
          }
        }
      }
      expect(busy, 'no request was turned away').to.not.equal(undefined);
      expect(Object.keys(errorBody(busy!)).sort()).to.deep.equal([
        'active_operations',
        'error',
        'max_concurrent',
        'retry_after_seconds',
      ]);
      expect(busy!.body.error).to.be.a('string').and.not.empty;
      expect(busy!.body).to.include({ active_operations: 1, max_concurrent: 1 });
      expect(busy!.body.retry_after_seconds).to.be.a('number').and.at.least(1);
      expect(busy!.headers.get('retry-after')).to.equal(String(busy!.body.retry_after_seconds));
      expect(await count(c)).to.equal(accepted * 2_000);
    });

    it('frees the concurrency slot after a failed batch', async () => {
      await setConfig({ max_concurrent_batches: 1 });
      const c = fresh();
      expectBatchBody(await updateBatch(c, { updates: [{ id: 'missing', data: { a: 1 } }] }), 400, 0, 1);
      expect((await insertBatch(c, { inserts: [{ data: { a: 1 } }] }, {}, '?transaction_id=unknown')).status).to.equal(
        404,
      );
      expectBatchBody(await insertBatch(c, { inserts: [{ data: { a: 1 } }] }), 201, 1, 0);
    });
  });

  const marks = (batches: LoggedBatch[], c: string) =>
    recordEffects(batches, c).map((e) => ('noRipple' in e && e.noRipple) === true);

  describe('bypass_ripple', () => {
    it('marks every record of the batch when passed as a query parameter', async () => {
      const c = fresh();
      const batches = await logged(async () => {
        expectBatchBody(
          await insertBatch(c, { inserts: [{ data: { a: 1 } }, { data: { a: 2 } }] }, {}, '?bypass_ripple=true'),
          201,
          2,
          0,
        );
      });
      expect(marks(batches, c)).to.deep.equal([true, true]);
    });

    it('marks every record of the batch when passed as a body member', async () => {
      const c = fresh();
      const ids = await seed(c, 2);
      const batches = await logged(async () => {
        expectBatchBody(
          await updateBatch(c, { updates: ids.map((id) => ({ id, data: { a: 1 } })), bypass_ripple: true }),
          200,
          2,
          0,
        );
      });
      expect(marks(batches, c)).to.deep.equal([true, true]);
    });

    it('marks only the items that ask for it, and treats a null per-item flag as false', async () => {
      const c = fresh();
      const ids = await seed(c, 3);
      const batches = await logged(async () => {
        const r = await deleteBatch(c, {
          deletes: [
            { id: ids[0], bypass_ripple: true },
            { id: ids[1], bypass_ripple: null },
            { id: ids[2], bypass_ripple: false },
          ],
        });
        expectBatchBody(r, 200, 3, 0);
      });
      expect(marks(batches, c)).to.deep.equal([true, false, false]);
    });

    it('leaves records unmarked by default', async () => {
      const c = fresh();
      const batches = await logged(async () => {
        await insertBatch(c, { inserts: [{ data: { a: 1 } }] });
      });
      expect(marks(batches, c)).to.deep.equal([false]);
    });

    for (const [where, query, body, named] of [
      ['query parameter', '?bypass_ripple=yes', { inserts: [{ data: { a: 1 } }] }, "'bypass_ripple'"],
      ['body member', '', { inserts: [{ data: { a: 1 } }], bypass_ripple: 'true' }, 'boolean at body'],
      [
        'item member',
        '',
        { inserts: [{ data: { a: 1 } }, { data: { a: 2 }, bypass_ripple: 1 }] },
        'boolean at inserts[1]',
      ],
    ] as const) {
      it(`rejects a non-boolean bypass_ripple ${where} with 400, naming where it stands`, async () => {
        const c = fresh();
        const r = await insertBatch(c, body, {}, query);
        expectRejected(r);
        expect(r.body.error).to.include(named);
        expect(await count(c)).to.equal(0);
      });
    }
  });

  describe('inside a transaction', () => {
    async function begin(): Promise<string> {
      const r = await t.request('POST', '/api/transactions', {});
      expect(r.status, r.text).to.equal(200);
      return r.body.transaction_id;
    }

    const status = async (tx: string) => (await t.request('GET', `/api/transactions/${tx}`)).body;

    it('stages a batch insert: invisible without the id, visible with it, applied at commit', async () => {
      const c = fresh();
      const tx = await begin();
      const r = await insertBatch(
        c,
        { inserts: [{ data: { n: 1 } }, { data: { n: 2 } }, { data: { id: 'staged', n: 3 } }] },
        {},
        `?transaction_id=${tx}`,
      );
      expectBatchBody(r, 201, 3, 0);
      expect(await count(c)).to.equal(0);
      expect((await get(c, 'staged')).status).to.equal(404);
      const seen = await get(c, 'staged', tx);
      expect(seen.status, seen.text).to.equal(200);
      expect(bare(seen.body).n).to.equal(3);
      const rows = await t.request('POST', `/api/find/${c}?transaction_id=${tx}`, {});
      expect(rows.body).to.have.length(3);
      expect((await t.request('POST', `/api/find/${c}`, {})).body).to.have.length(0);
      expect((await status(tx)).operations_count).to.equal(3);
      const commit = await t.request('POST', `/api/transactions/${tx}/commit`);
      expect(commit.status, commit.text).to.equal(200);
      expect(commit.body.operations_count).to.equal(3);
      expect(await count(c)).to.equal(3);
      for (const id of r.body.successful) expect((await get(c, id)).status).to.equal(200);
    });

    it('counts one operation per staged record of a batch update and discards them at rollback', async () => {
      const c = fresh();
      const ids = await seed(c, 2);
      const tx = await begin();
      const r = await updateBatch(
        c,
        { updates: ids.map((id) => ({ id, data: { n: 42 } })) },
        {},
        `?transaction_id=${tx}`,
      );
      expectBatchBody(r, 200, 2, 0);
      expect((await status(tx)).operations_count).to.equal(2);
      expect(bare((await get(c, ids[0]!, tx)).body).n).to.equal(42);
      expect(bare((await get(c, ids[0]!)).body).n).to.equal(0);
      const rb = await t.request('POST', `/api/transactions/${tx}/rollback`);
      expect(rb.body).to.deep.equal({ status: 'rolled_back', transaction_id: tx, operations_rolled_back: 2 });
      expect(bare((await get(c, ids[0]!)).body).n).to.equal(0);
    });

    it('stages a batch delete and applies it at commit', async () => {
      const c = fresh();
      const ids = await seed(c, 3);
      const tx = await begin();
      expectBatchBody(
        await deleteBatch(c, { deletes: [{ id: ids[0] }, { id: ids[1] }] }, {}, `?transaction_id=${tx}`),
        200,
        2,
        0,
      );
      expect((await get(c, ids[0]!, tx)).status).to.equal(404);
      expect(await count(c)).to.equal(3);
      expect((await t.request('POST', `/api/transactions/${tx}/commit`)).status).to.equal(200);
      expect(await count(c)).to.equal(1);
    });

    it('reports staged items that cannot apply (missing record, duplicate id) in failed', async () => {
      const c = fresh();
      const ids = await seed(c, 1);
      const tx = await begin();
      const ins = await insertBatch(
        c,
        { inserts: [{ data: { id: 'x' } }, { data: { id: 'x' } }] },
        {},
        `?transaction_id=${tx}`,
      );
      expectBatchBody(ins, 207, 1, 1);
      const up = await updateBatch(
        c,
        {
          updates: [
            { id: ids[0], data: { n: 1 } },
            { id: 'ghost', data: { n: 1 } },
          ],
        },
        {},
        `?transaction_id=${tx}`,
      );
      expectBatchBody(up, 207, 1, 1);
      expect(up.body.failed[0].id).to.equal('ghost');
      expect((await status(tx)).operations_count).to.equal(2);
    });

    it('stages 10,000 records in one batch in linear time and commits them', async function () {
      // Staging once replayed every earlier operation for each new one (quadratic or worse): 2,000 took minutes.
      this.timeout(30_000);
      const c = fresh();
      const tx = await begin();
      const inserts = Array.from({ length: 10_000 }, (_, i) => ({ data: { n: i } }));
      const started = Date.now();
      expectBatchBody(await insertBatch(c, { inserts }, {}, `?transaction_id=${tx}`), 201, 10_000, 0);
      const more = await insertBatch(c, { inserts: [{ data: { n: -1 } }] }, {}, `?transaction_id=${tx}`);
      expectBatchBody(more, 201, 1, 0);
      expect(Date.now() - started, 'staging time (ms)').to.be.below(15_000);
      expect((await status(tx)).operations_count).to.equal(10_001);
      expect(await count(c)).to.equal(0);
      const commit = await t.request('POST', `/api/transactions/${tx}/commit`);
      expect(commit.body.operations_count).to.equal(10_001);
      expect(await count(c)).to.equal(10_001);
    });

    it('defers bypass_ripple to commit and honours it per staged item', async () => {
      const c = fresh();
      const tx = await begin();
      const staged = await logged(async () => {
        const r = await insertBatch(
          c,
          { inserts: [{ data: { id: 'r1' }, bypass_ripple: true }, { data: { id: 'r2' } }] },
          {},
          `?transaction_id=${tx}`,
        );
        expectBatchBody(r, 201, 2, 0);
      });
      expect(recordEffects(staged, c)).to.deep.equal([]);
      const committed = await logged(async () => {
        await t.request('POST', `/api/transactions/${tx}/commit`);
      });
      expect(marks(committed, c)).to.deep.equal([true, false]);
    });

    it('stages a Rust positional MessagePack batch', async () => {
      const c = fresh();
      const tx = await begin();
      const r = await insertBatch(
        c,
        [
          [
            [{ id: 'p1' }, null],
            [{ id: 'p2' }, true],
          ],
        ],
        { format: 'msgpack' },
        `?transaction_id=${tx}`,
      );
      expectBatchBody(r, 201, 2, 0);
      expect(await count(c)).to.equal(0);
      expect((await t.request('POST', `/api/transactions/${tx}/commit`)).status).to.equal(200);
      expect(await count(c)).to.equal(2);
    });

    it('answers 404 Transaction not found for an unknown transaction and writes nothing', async () => {
      const c = fresh();
      for (const r of [
        await insertBatch(
          c,
          { inserts: [{ data: { a: 1 } }] },
          {},
          '?transaction_id=00000000-0000-4000-8000-000000000000',
        ),
        await updateBatch(c, { updates: [{ id: 'a', data: { a: 1 } }] }, {}, '?transaction_id=nope'),
        await deleteBatch(c, { deletes: [{ id: 'a' }] }, {}, '?transaction_id=nope'),
      ]) {
        expect(r.status, r.text).to.equal(404);
        expect(errorBody(r)).to.deep.equal({ error: 'Transaction not found' });
      }
      expect(await count(c)).to.equal(0);
    });

    it('validates staged ids like direct ones', async () => {
      const c = fresh();
      const tx = await begin();
      for (const id of [{}, '', 'x'.repeat(600), 'a\u0001b', true]) {
        const r = await updateBatch(c, { updates: [{ id, data: { a: 1 } }] }, {}, `?transaction_id=${tx}`);
        expectRejected(r);
        if (Array.isArray(r.body.failed)) expect(r.body.failed[0].error).to.match(/Invalid id/);
      }
      expect((await status(tx)).operations_count).to.equal(0);
    });
  });

  describe('bad input', () => {
    const cases: Array<[string, 'insert' | 'update' | 'delete', unknown]> = [
      ['an empty object', 'insert', {}],
      ['a string body', 'insert', 'inserts'],
      ['a number body', 'update', 42],
      ['null', 'delete', null],
      ['inserts that is not an array', 'insert', { inserts: { data: {} } }],
      ['inserts that is a string', 'insert', { inserts: 'abc' }],
      ['an item without data', 'insert', { inserts: [{ record: { a: 1 } }] }],
      ['an item that is null', 'insert', { inserts: [null] }],
      ['an item that is a number', 'insert', { inserts: [5] }],
      ['data that is not an object', 'insert', { inserts: [{ data: 'x' }] }],
      ['data that is an array', 'insert', { inserts: [{ data: [1, 2] }] }],
      ['a body id that is not a string', 'insert', { inserts: [{ data: { id: { $gt: '' } } }] }],
      ['an unknown top-level member', 'insert', { inserts: [{ data: { a: 1 } }], extra: true }],
      ['the wrong list key', 'update', { inserts: [{ data: { a: 1 } }] }],
      ['an update without id', 'update', { updates: [{ data: { a: 1 } }] }],
      ['an update without data', 'update', { updates: [{ id: 'a' }] }],
      ['an update with an object id', 'update', { updates: [{ id: { a: 1 }, data: { a: 1 } }] }],
      ['an update with an empty id', 'update', { updates: [{ id: '', data: { a: 1 } }] }],
      ['an update with a control character in the id', 'update', { updates: [{ id: 'a\u0000b', data: { a: 1 } }] }],
      ['an update with a 600-character id', 'update', { updates: [{ id: 'i'.repeat(600), data: { a: 1 } }] }],
      ['a delete without id', 'delete', { deletes: [{}] }],
      ['a delete with a null id', 'delete', { deletes: [{ id: null }] }],
      ['a delete item that is a bare string', 'delete', { deletes: ['abc'] }],
      ['a delete with an array id', 'delete', { deletes: [{ id: ['a'] }] }],
      ['a positional insert item with no record', 'insert', [[[]]]],
      ['a positional update item with a map id', 'update', [[[{ a: 1 }, { a: 1 }, null]]]],
    ];
    const send = { insert: insertBatch, update: updateBatch, delete: deleteBatch };

    for (const [why, kind, body] of cases) {
      it(`answers 400, never 500, to ${why} (${kind})`, async () => {
        const c = fresh();
        expectRejected(await send[kind](c, body));
        expect(await count(c)).to.equal(0);
      });
    }

    for (const raw of [
      '{"inserts":[{"data":{"__proto__":{"polluted":1}}}]}',
      '{"__proto__":{"polluted":1},"inserts":[{"data":{"a":1}}]}',
      '{"inserts":[{"__proto__":{"data":{"a":1}}}]}',
      '{"inserts":[{"data":{"a":{"b":{"__proto__":{"polluted":1}}}}}]}',
    ]) {
      it(`answers 400 to the hostile JSON ${raw.slice(0, 60)}`, async () => {
        const c = fresh();
        expectRejected(await insertBatch(c, undefined, { raw }));
        expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
        expect(await count(c)).to.equal(0);
      });
    }

    it('answers 400 to a MessagePack body that spells __proto__', async () => {
      const c = fresh();
      const data = JSON.parse('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
      const raw = Buffer.from(mpEncode([[[data, null]]]));
      expectRejected(await insertBatch(c, undefined, { format: 'msgpack', raw }));
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('stores constructor and prototype as plain field names without polluting anything', async () => {
      const c = fresh();
      const r = await insertBatch(c, {
        inserts: [{ data: { constructor: { prototype: { polluted: 1 } }, prototype: 1, toString: 'x' } }],
      });
      expect(r.status, r.text).to.be.oneOf([201, 400]);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('answers 400 to malformed JSON and MessagePack', async () => {
      const c = fresh();
      expectRejected(await insertBatch(c, undefined, { raw: '{"inserts":[' }));
      expectRejected(await insertBatch(c, undefined, { format: 'msgpack', raw: Buffer.from([0x91, 0x92, 0xc1]) }));
    });

    it('answers 400 to an invalid collection name', async () => {
      expectRejected(await insertBatch('bad%24name', { inserts: [{ data: { a: 1 } }] }));
    });
  });
});
