/**
 * A 10,000-record batch insert over HTTP (JSON and MessagePack bodies) does
 * not stop the server answering: point reads and counts sent while it runs
 * are answered before it is, and each sees none of the batch or all of it.
 * The same inside a transaction: the batch stages in slices, and a commit
 * sent while it stages waits for it and applies all of it. A large body's
 * procedure (parsing its items, permissions, the batch's first slice) runs
 * only after the loop has gone round once since the body was decoded.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

const SIZE = 10_000;

describe('http batch insert answers reads meanwhile', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  for (const format of ['json', 'msgpack'] as const) {
    it(`answers reads during a ${SIZE}-record ${format} batch, each seeing none or all of it`, async () => {
      const c = `yield_${format}`;
      const seed = await t.request('POST', `/api/insert/${c}`, { seed: true });
      expect(seed.status).to.equal(201);
      const inserts = Array.from({ length: SIZE }, (_, i) => ({
        data: { name: `user ${i}`, email: `user${i}@example.com`, age: 18 + (i % 60), bio: 'x'.repeat(120) },
      }));
      let answered = false;
      const batch = t.request('POST', `/api/batch/insert/${c}`, { inserts }, { format }).finally(() => {
        answered = true;
      });
      let readsBefore = 0;
      while (!answered) {
        const [found, count] = await Promise.all([
          t.request('GET', `/api/find/${c}/${seed.body.id}`),
          t.request('GET', `/api/${c}/count`),
        ]);
        expect(found.status).to.equal(200);
        expect([1, SIZE + 1], 'count seen during the batch').to.include(count.body.count);
        if (!answered) readsBefore += 1;
      }
      const r = await batch;
      expect(r.status, r.text.slice(0, 300)).to.equal(201);
      expect(r.body.successful).to.have.length(SIZE);
      expect(readsBefore, 'reads answered while the batch ran').to.be.above(0);
      expect((await t.request('GET', `/api/${c}/count`)).body.count).to.equal(SIZE + 1);
    });
  }

  it(`answers reads during a ${SIZE}-record batch inside a transaction, and a commit sent meanwhile applies all of it`, async () => {
    const c = 'yield_tx';
    const seed = await t.request('POST', `/api/insert/${c}`, { seed: true });
    const tx = (await t.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' })).body
      .transaction_id as string;
    const inserts = Array.from({ length: SIZE }, (_, i) => ({ data: { name: `user ${i}`, bio: 'x'.repeat(120) } }));
    let answered = false;
    const batch = t.request('POST', `/api/batch/insert/${c}?transaction_id=${tx}`, { inserts }).finally(() => {
      answered = true;
    });
    let readsBefore = 0;
    let staged = 0;
    // Until the batch has staged something (then commit), reading a committed record and the transaction's status.
    while (!answered && staged === 0) {
      const [found, status] = await Promise.all([
        t.request('GET', `/api/find/${c}/${seed.body.id}`),
        t.request('GET', `/api/transactions/${tx}`),
      ]);
      expect(found.status).to.equal(200);
      staged = status.body.operations_count;
      if (!answered) readsBefore += 1;
    }
    const commit = await t.request('POST', `/api/transactions/${tx}/commit`);
    expect(commit.status, commit.text).to.equal(200);
    expect(commit.body.operations_count, 'the commit waited for the whole batch').to.equal(SIZE);
    const r = await batch;
    expect(r.status, r.text.slice(0, 300)).to.equal(201);
    expect(r.body.successful).to.have.length(SIZE);
    expect(readsBefore, 'reads answered while the batch ran').to.be.above(0);
    expect((await t.request('GET', `/api/${c}/count`)).body.count).to.equal(SIZE + 1);
  });

  it('parses a large body and runs its procedure in turns of the loop after the one it arrived in', async () => {
    const rawHeaders = ['Authorization', `Bearer ${await t.adminToken()}`, 'Content-Type', 'application/json'];
    // The last item is refused while the items are parsed: the answer shows when that ran.
    const inserts: unknown[] = Array.from({ length: 3000 }, (_, i) => ({
      data: { name: `user ${i}`, bio: 'x'.repeat(120) },
    }));
    inserts.push('not an item');
    const body = Buffer.from(JSON.stringify({ inserts }));
    expect(body.length).to.be.above(256 * 1024);
    const small = Buffer.from(JSON.stringify({ inserts: inserts.slice(-2) }));
    await t.request('GET', '/api/collections'); // the token is known now: nothing else on the way waits
    const now = t.server.dispatcher.respond({
      method: 'POST',
      url: '/api/batch/insert/yield_turn',
      headers: {},
      rawHeaders,
      body: small,
    });
    expect(now, 'a small body is parsed in the same turn').to.not.be.instanceOf(Promise);

    const answer = t.server.dispatcher.respond({
      method: 'POST',
      url: '/api/batch/insert/yield_turn',
      headers: {},
      rawHeaders,
      body,
    });
    expect(answer, 'a large body is answered later').to.be.instanceOf(Promise);
    const order: string[] = [];
    setTimeout(() => order.push('timers phase'), 0);
    const started = performance.now();
    while (performance.now() - started < 3); // the timer is due
    const r = await (answer as Promise<{ status: number; body: Buffer | string }>).finally(() =>
      order.push('answered'),
    );
    expect(order).to.deep.equal(['timers phase', 'answered']);
    expect(r.status).to.equal(400);
    expect(JSON.parse(String(r.body)).error).to.include('inserts[3000]');

    // The parse itself runs a turn after the text was made: a large body that is not JSON is refused after a timers
    // phase.
    const broken = Buffer.concat([body, Buffer.from('}')]);
    const refusal = t.server.dispatcher.respond({
      method: 'POST',
      url: '/api/batch/insert/yield_turn',
      headers: {},
      rawHeaders,
      body: broken,
    });
    expect(refusal, 'a large body is parsed later').to.be.instanceOf(Promise);
    const seen: string[] = [];
    setTimeout(() => seen.push('timers phase'), 0);
    const until = performance.now();
    while (performance.now() - until < 3);
    const bad = await (refusal as Promise<{ status: number; body: Buffer | string }>).finally(() =>
      seen.push('answered'),
    );
    expect(seen).to.deep.equal(['timers phase', 'answered']);
    expect(bad.status).to.equal(400);
    expect(JSON.parse(String(bad.body)).error).to.match(/^Malformed JSON body/);
  });

  it(
    `makes a savepoint sent during a ${SIZE}-record batch of its transaction after all of it, and a rollback sent ` +
      `meanwhile undoes all of it`,
    async () => {
      const c = 'yield_savepoints';
      const tx = (await t.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' })).body
        .transaction_id as string;
      const sp = (name: string) => t.request('POST', `/api/transactions/${tx}/savepoints`, { name });
      expect((await sp('before')).status).to.equal(200);
      const inserts = Array.from({ length: SIZE }, (_, i) => ({ data: { name: `user ${i}`, bio: 'x'.repeat(120) } }));
      /** Sends the batch and, once it has staged part of itself, `during`; both answers. */
      const duringBatch = async (during: () => Promise<any>) => {
        let answered = false;
        const batch = t.request('POST', `/api/batch/insert/${c}?transaction_id=${tx}`, { inserts }).finally(() => {
          answered = true;
        });
        let staged = 0;
        while (!answered && staged === 0)
          staged = (await t.request('GET', `/api/transactions/${tx}`)).body.operations_count % SIZE;
        expect(answered, 'the batch was still staging').to.equal(false);
        const [duringAnswer, batchAnswer] = await Promise.all([during(), batch]);
        expect(batchAnswer.status, batchAnswer.text.slice(0, 300)).to.equal(201);
        return duringAnswer;
      };
      // A savepoint sent mid-batch holds all of it: rolling back to it undoes nothing of the batch.
      const made = await duringBatch(() => sp('after_batch'));
      expect(made.status, made.text).to.equal(200);
      const toAfter = await t.request('POST', `/api/transactions/${tx}/savepoints/after_batch/rollback`);
      expect(toAfter.body).to.include({ operations_rolled_back: 0, operations_count: SIZE });
      // A rollback sent during the next batch undoes both batches whole, not the part staged so far.
      const rolled = await duringBatch(() => t.request('POST', `/api/transactions/${tx}/savepoints/before/rollback`));
      expect(rolled.status, rolled.text).to.equal(200);
      expect(rolled.body).to.include({ operations_rolled_back: 2 * SIZE, operations_count: 0 });
      expect((await t.request('POST', `/api/transactions/${tx}/commit`)).body.operations_count).to.equal(0);
    },
  );
});
