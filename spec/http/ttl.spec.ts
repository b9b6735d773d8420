/**
 * End-to-end specs of record TTLs (protocol.md 2.5): durations, seconds and
 * RFC 3339 instants; the bare `ttl` expiry in the record; "Record has been
 * deleted" after expiry whether or not the sweeper ran; sliding expiry with
 * `ttl_update_on_access`; 400 for an unusable ttl. Time moves only through
 * the harness's ManualClock.
 */
import { expect } from 'chai';
import { bare, TestServer, type Reply } from '../helpers/test-server.js';

let counter = 0;
const fresh = (): string => `ttl_${++counter}`;

function expectError(r: Reply, status: number, message?: string | RegExp): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.body.error, r.text).to.be.a('string');
  if (typeof message === 'string') expect(r.body.error).to.equal(message);
  else if (message) expect(r.body.error).to.match(message);
}

describe('http record TTL', () => {
  let t: TestServer;
  // A server per test: moving the clock past an hour would also expire the harness's token.
  beforeEach(async () => {
    t = await TestServer.start({ settings: { token_ttl_secs: 30 * 86_400 } });
  });
  afterEach(async () => {
    await t.stop();
  });

  async function insert(
    c: string,
    body: Record<string, unknown>,
    format: 'json' | 'msgpack' = 'json',
  ): Promise<string> {
    const r = await t.request('POST', `/api/insert/${c}`, body, { format });
    expect(r.status, r.text).to.equal(201);
    return r.body.id;
  }

  const get = (c: string, id: string): Promise<Reply> => t.request('GET', `/api/find/${c}/${encodeURIComponent(id)}`);

  async function visible(c: string): Promise<{ found: string[]; count: number }> {
    const found = await t.request('POST', `/api/find/${c}`, {});
    const count = await t.request('GET', `/api/${c}/count`);
    return { found: found.body.map((r: Record<string, any>) => r.id), count: count.body.count };
  }

  /** Lets background writes (sliding-expiry extensions) land before the next read. */
  const settle = (): Promise<void> => t.server.db.queue.idle();

  const ttlForms: Array<[string, unknown, number]> = [
    ['"30s"', '30s', 30_000],
    ['"5m"', '5m', 300_000],
    ['"1h"', '1h', 3_600_000],
    ['"1h30m"', '1h30m', 5_400_000],
    ['integer seconds', 90, 90_000],
    ['a digit string', '45', 45_000],
  ];

  for (const [what, ttl, ms] of ttlForms) {
    it(`expires a record inserted with ttl ${what} exactly at its expiry`, async () => {
      const c = fresh();
      const start = t.clock.now();
      const id = await insert(c, { name: 'temp', ttl });
      const r = await get(c, id);
      expect(r.status).to.equal(200);
      expect(r.body.ttl).to.be.a('string');
      expect(Date.parse(r.body.ttl)).to.equal(start + ms);
      expect(r.body.name).to.deep.equal({ type: 'String', value: 'temp' });
      t.clock.advance(ms - 1);
      expect((await get(c, id)).status).to.equal(200);
      t.clock.advance(1);
      expectError(await get(c, id), 404, 'Record has been deleted');
    });
  }

  it('accepts an RFC 3339 instant and returns it as the bare expiry', async () => {
    const c = fresh();
    const at = new Date(t.clock.now() + 120_000);
    const id = await insert(c, { v: 1, ttl: at.toISOString() });
    const r = await get(c, id);
    expect(r.body.ttl).to.equal(at.toISOString());
    t.clock.advance(119_999);
    expect((await get(c, id)).status).to.equal(200);
    t.clock.advance(1);
    expectError(await get(c, id), 404, 'Record has been deleted');
  });

  it('accepts an RFC 3339 instant with an offset', async () => {
    const c = fresh();
    const at = t.clock.now() + 3_600_000;
    const local = new Date(at + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const id = await insert(c, { v: 1, ttl: local });
    expect(Date.parse((await get(c, id)).body.ttl)).to.equal(at);
  });

  it('keeps ttl bare in find results and in untyped mode, and over MessagePack', async () => {
    const c = fresh();
    const id = await insert(c, { v: 1, ttl: '1h' }, 'msgpack');
    const found = await t.request('POST', `/api/find/${c}`, {}, { format: 'msgpack' });
    expect(found.body[0].ttl).to.be.a('string');
    expect(found.body[0].v).to.deep.equal({ type: 'Integer', value: 1 });
    await t.request('PUT', '/api/config', { use_typed_values: false });
    try {
      expect((await get(c, id)).body).to.deep.equal({ id, v: 1, ttl: found.body[0].ttl });
    } finally {
      await t.request('PUT', '/api/config', { use_typed_values: true });
    }
  });

  it('says "Record has been deleted" before and after the sweeper, and drops the record from find and count', async () => {
    const c = fresh();
    const keep = await insert(c, { v: 'keep' });
    const gone = await insert(c, { v: 'gone', ttl: '30s' });
    expect(await visible(c)).to.deep.equal({ found: [keep, gone], count: 2 });
    t.clock.advance(31_000);
    expectError(await get(c, gone), 404, 'Record has been deleted');
    expect(await visible(c)).to.deep.equal({ found: [keep], count: 1 });
    const distinct = await t.request('POST', `/api/distinct/${c}/v`, {});
    expect(distinct.body.values).to.deep.equal(['keep']);
    expect(await t.server.db.records.expiry.sweep()).to.be.at.least(1);
    expectError(await get(c, gone), 404, 'Record has been deleted');
    expect(await visible(c)).to.deep.equal({ found: [keep], count: 1 });
    expect((await get(c, keep)).status).to.equal(200);
  });

  it('answers 404 to update, actions and delete of an expired record, before and after the sweeper', async () => {
    const c = fresh();
    const id = await insert(c, { n: 1, ttl: '10s' });
    t.clock.advance(10_000);
    for (let round = 0; round < 2; round++) {
      expect((await t.request('PUT', `/api/update/${c}/${id}`, { n: 2 })).status).to.equal(404);
      expect(
        (await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n', value: 1 })).status,
      ).to.equal(404);
      expect((await t.request('PUT', `/api/update/sequence/${c}/${id}`, [['increment', 'n', 1]])).status).to.equal(404);
      expect((await t.request('DELETE', `/api/delete/${c}/${id}`)).status).to.equal(404);
      await t.server.db.records.expiry.sweep();
    }
  });

  it('lets an upsert re-insert the id of an expired record that was not swept yet', async () => {
    const c = fresh();
    await insert(c, { id: 'session-1', n: 1, ttl: '10s' });
    t.clock.advance(10_000);
    expect((await t.request('PUT', `/api/update/${c}/session-1`, { n: 2 })).status).to.equal(404);
    const again = await t.request('POST', `/api/insert/${c}`, { id: 'session-1', n: 2 });
    expect(again.status, again.text).to.equal(201);
    const r = await get(c, 'session-1');
    expect(r.status).to.equal(200);
    expect(bare(r.body)).to.deep.equal({ id: 'session-1', n: 2 });
    await t.server.db.records.expiry.sweep();
    expect((await get(c, 'session-1')).status).to.equal(200);
    expect((await visible(c)).count).to.equal(1);
  });

  it('does not let an expired record hold a unique value', async () => {
    const c = fresh();
    const created = await t.request('POST', `/api/collections/${c}`, {
      fields: { email: { field_type: 'String', unique: true } },
    });
    expect(created.status, created.text).to.equal(201);
    await insert(c, { email: 'a@example.com', ttl: '10s' });
    expectError(await t.request('POST', `/api/insert/${c}`, { email: 'a@example.com' }), 400);
    t.clock.advance(10_000);
    const r = await t.request('POST', `/api/insert/${c}`, { email: 'a@example.com' });
    expect(r.status, r.text).to.equal(201);
  });

  it('keeps the expiry when a record is updated without ttl, and replaces or clears it when given', async () => {
    const c = fresh();
    const start = t.clock.now();
    const id = await insert(c, { n: 1, ttl: '1m' });
    const upd = await t.request('PUT', `/api/update/${c}/${id}`, { n: 2 });
    expect(Date.parse(upd.body.ttl)).to.equal(start + 60_000);
    const act = await t.request('PUT', `/api/update/${c}/${id}/action/increment`, { field: 'n', value: 1 });
    expect(Date.parse(act.body.ttl)).to.equal(start + 60_000);
    expectError(
      await t.request('PUT', `/api/update/${c}/${id}/action/clear`, { field: 'ttl' }),
      400,
      "Failed to apply action 'clear': field 'ttl' cannot be modified",
    );
    expectError(await t.request('PUT', `/api/update/sequence/${c}/${id}`, [['append', 'ttl', 'x']]), 400);
    const longer = await t.request('PUT', `/api/update/${c}/${id}`, { ttl: '1h' });
    expect(Date.parse(longer.body.ttl)).to.equal(start + 3_600_000);
    t.clock.advance(120_000);
    expect((await get(c, id)).status).to.equal(200);
    const cleared = await t.request('PUT', `/api/update/${c}/${id}`, { ttl: null });
    expect(cleared.body).to.not.have.property('ttl');
    t.clock.advance(10 * 3_600_000);
    expect(bare((await get(c, id)).body)).to.deep.equal({ id, n: 3 });
  });

  it('slides the expiry on each read with ttl_update_on_access', async () => {
    const c = fresh();
    const id = await insert(c, { v: 1, ttl: '30s', ttl_update_on_access: true });
    for (let i = 0; i < 4; i++) {
      t.clock.advance(20_000);
      const r = await get(c, id);
      expect(r.status, `read ${i}`).to.equal(200);
      expect(Date.parse(r.body.ttl)).to.equal(t.clock.now() + 30_000);
      expect(r.body).to.not.have.property('ttl_update_on_access');
      await settle();
    }
    t.clock.advance(30_000);
    expectError(await get(c, id), 404, 'Record has been deleted');
  });

  it('does not slide the expiry without ttl_update_on_access', async () => {
    const c = fresh();
    const id = await insert(c, { v: 1, ttl: '30s' });
    t.clock.advance(20_000);
    expect((await get(c, id)).status).to.equal(200);
    await settle();
    t.clock.advance(10_000);
    expectError(await get(c, id), 404, 'Record has been deleted');
  });

  it('answers 400 for an unusable ttl and stores nothing', async () => {
    const c = fresh();
    await insert(c, { keep: true });
    const bad: unknown[] = [
      'abc',
      '10x',
      '',
      ' ',
      '-5s',
      -5,
      0,
      '0',
      '0s',
      1.5e300,
      1e20,
      '99999999999999999999s',
      Number.MAX_SAFE_INTEGER,
      true,
      {},
      [],
      ['30s'],
      '2026-13-01T00:00:00Z',
      'tomorrow',
      { type: 'Integer', value: -1 },
    ];
    for (const ttl of bad) {
      const r = await t.request('POST', `/api/insert/${c}`, { v: 1, ttl });
      expect(r.status, `${JSON.stringify(ttl)}: ${r.text}`).to.equal(400);
      expect(r.body.error).to.be.a('string');
    }
    expect((await visible(c)).count).to.equal(1);
  });

  it('answers 400 for a non-boolean ttl_update_on_access', async () => {
    const c = fresh();
    await insert(c, { keep: true });
    for (const flag of ['yes', 1, {}, 'true']) {
      expectError(
        await t.request('POST', `/api/insert/${c}`, { v: 1, ttl: '30s', ttl_update_on_access: flag }),
        400,
        /ttl_update_on_access/,
      );
    }
    expect((await visible(c)).count).to.equal(1);
    expect(
      (
        await t.request('POST', `/api/insert/${c}`, {
          v: 1,
          ttl: '30s',
          ttl_update_on_access: { type: 'Boolean', value: false },
        })
      ).status,
    ).to.equal(201);
  });

  it('answers 400 for an unusable ttl on update and changes nothing', async () => {
    const c = fresh();
    const id = await insert(c, { n: 1 });
    for (const ttl of ['abc', -1, 1e20, {}]) {
      const r = await t.request('PUT', `/api/update/${c}/${id}`, { n: 2, ttl });
      expect(r.status, `${JSON.stringify(ttl)}: ${r.text}`).to.equal(400);
    }
    expect(bare((await get(c, id)).body)).to.deep.equal({ id, n: 1 });
  });
});
