import { expect } from 'chai';
import { bare, TestServer, type Reply, errorBody } from '../helpers/test-server.js';

const PARALLEL = 50;

describe('HTTP stored functions: key-value and concurrency steps through a real server', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await TestServer.start();
  });
  afterEach(async () => {
    await s.stop();
  });

  const save = (def: Record<string, unknown>) => s.saveFunction(def);
  const call = (label: string, params: unknown = {}) => s.callFunction(label, params);
  /** `n` calls sent at once over separate requests. */
  const together = async (n: number, label: string, params: unknown = {}): Promise<Reply[]> => {
    await s.adminToken();
    return Promise.all(Array.from({ length: n }, () => call(label, params)));
  };

  it('serves an edge cache built from KvGet, If and KvSet: a miss fills the cache, a hit answers {value} typed', async () => {
    await save({
      label: 'edge',
      parameters: { id: { required: true }, fresh: { required: false, default: null } },
      functions: [
        { type: 'KvGet', key: 'cache:product:{{id}}' },
        {
          type: 'If',
          condition: { type: 'FieldEquals', value: { field: 'value', value: null } },
          then_functions: [
            { type: 'KvSet', key: 'cache:product:{{id}}', value: '{{fresh}}', ttl: '15m' },
            { type: 'KvGet', key: 'cache:product:{{id}}' },
          ],
        },
      ],
    });
    const first = await call('edge', { id: 7, fresh: { name: 'Lamp', price: 12.5 } });
    expect(first.status).to.equal(200);
    expect(first.body.records).to.have.length(1);
    expect(first.body.records[0].value).to.deep.equal({ type: 'Object', value: { name: 'Lamp', price: 12.5 } });
    // the hit path ignores what the caller sends
    const hit = await call('edge', { id: 7, fresh: { name: 'other' } });
    expect(hit.body.records).to.deep.equal(first.body.records);
    expect(hit.body.stats.stages_executed).to.equal(2);
    expect((await s.request('GET', '/api/kv/get/cache%3Aproduct%3A7')).body.value.type).to.equal('Object');
    s.clock.advance(15 * 60_000);
    expect(bare((await call('edge', { id: 7, fresh: { name: 'new' } })).body.records[0]).value).to.deep.equal({
      name: 'new',
    });
  });

  it('lets exactly `limit` of 50 concurrent calls pass a RateLimit; the rest get 429 with Retry-After and the step body', async () => {
    await save({
      label: 'limited',
      functions: [{ type: 'RateLimit', key: 'api', limit: 10, window_secs: 3600, output_field: 'rl' }],
    });
    const replies = await together(PARALLEL, 'limited');
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(ok).to.have.length(10);
    expect(limited).to.have.length(PARALLEL - 10);
    const nowSecs = Math.floor(s.clock.now() / 1000);
    const resetAt = nowSecs - (nowSecs % 3600) + 3600;
    const r = limited[0]!;
    expect(r.headers.get('retry-after')).to.equal(String(resetAt - nowSecs));
    expect(r.headers.get('x-ratelimit-reset')).to.equal(String(resetAt));
    expect(errorBody(r)).to.deep.equal({
      error: true,
      operation_index: 0,
      operation_type: 'RateLimit',
      message: 'Rate limit exceeded: 10 calls per 3600 s',
      details: { limit: 10, remaining: 0, window_secs: 3600, reset_at: resetAt, retry_after_secs: resetAt - nowSecs },
    });
    expect(ok.map((x) => bare(x.body.records[0]).rl.allowed)).to.deep.equal(Array(10).fill(true));
  });

  it('lets exactly one of 50 concurrent calls claim an idempotency key', async () => {
    await save({
      label: 'claim',
      functions: [
        { type: 'IdempotencyClaim', key: 'req-1', ttl_secs: 60, output_field: 'claim' },
        { type: 'Return', fields: { claimed: '{{claim.claimed}}' } },
      ],
    });
    const replies = await together(PARALLEL, 'claim');
    expect(replies.every((r) => r.status === 200)).to.equal(true);
    expect(replies.filter((r) => r.body.claimed === true)).to.have.length(1);
    expect(replies.filter((r) => r.body.claimed === false)).to.have.length(PARALLEL - 1);
  });

  it('gives a lock to exactly one of 50 concurrent calls, and releases it with its token only', async () => {
    await save({
      label: 'lock',
      functions: [
        { type: 'LockAcquire', key: 'lock:job', ttl_secs: 60, output_field: 'lock' },
        { type: 'Return', fields: { acquired: '{{lock.acquired}}', token: '{{lock.token}}' } },
      ],
    });
    await save({
      label: 'unlock',
      parameters: { token: { required: true } },
      functions: [
        { type: 'LockRelease', key: 'lock:job', token: '{{token}}' },
        { type: 'Return', fields: { released: '{{lock_release.released}}' } },
      ],
    });
    const replies = await together(PARALLEL, 'lock');
    const winners = replies.filter((r) => r.body.acquired === true);
    expect(winners).to.have.length(1);
    expect((await call('unlock', { token: 'guess' })).body).to.deep.equal({ released: false });
    expect((await call('unlock', { token: winners[0]!.body.token })).body).to.deep.equal({ released: true });
    expect((await call('lock')).body.acquired).to.equal(true);
  });

  it('never lets two callers inside a LockAcquire/LockRelease section at once (20 concurrent workers)', async () => {
    const held = { type: 'FieldEquals', value: { field: 'lock.acquired', value: true } };
    await save({
      label: 'turn',
      parameters: { worker: { required: true } },
      functions: [
        { type: 'LockAcquire', key: 'lock:section', ttl_secs: 30 },
        {
          type: 'If',
          condition: held,
          then_functions: [
            // each Insert makes the inserted record the working record, so the token travels in it
            {
              type: 'Insert',
              collection: 'trace',
              record: { phase: 'enter', worker: '{{worker}}', token: '{{lock.token}}' },
            },
            { type: 'Sleep', duration_ms: 2 },
            {
              type: 'Insert',
              collection: 'trace',
              record: { phase: 'exit', worker: '{{worker}}', token: '{{token}}' },
            },
            { type: 'LockRelease', key: 'lock:section', token: '{{token}}' },
            { type: 'Return', fields: { acquired: true, released: '{{lock_release.released}}' } },
          ],
          else_functions: [{ type: 'Return', fields: { acquired: false } }],
        },
      ],
    });
    await s.adminToken();
    const worker = async (i: number) => {
      for (let attempt = 0; attempt < 2000; attempt++) {
        const r = await call('turn', { worker: i });
        expect(r.status, r.text).to.equal(200);
        if (r.body.acquired === true) return expect(r.body.released).to.equal(true);
      }
      throw new Error(`worker ${i} never got the lock`);
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => worker(i)));
    const trace = ((await s.request('POST', '/api/find/trace', {})).body as any[]).map((r) => bare(r));
    expect(trace).to.have.length(40);
    for (let i = 0; i < trace.length; i += 2) {
      expect(trace[i]).to.include({ phase: 'enter' });
      expect(trace[i + 1]).to.include({ phase: 'exit', worker: trace[i]!.worker, token: trace[i]!.token });
    }
    expect(new Set(trace.map((r) => r.worker)).size).to.equal(20);
    // every holder released its lock on the way out
    expect((await s.request('GET', '/api/kv/get/lock%3Asection')).status).to.equal(404);
  });

  it('refuses at save a bad KvQuery pattern and a KV step in a transactional function, with the step path', async () => {
    const bad = await s.request('POST', '/api/functions', {
      label: 'q',
      name: 'q',
      parameters: {},
      functions: [{ type: 'KvQuery', pattern: '(a)\\1' }],
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/^functions\[0\]\.pattern: /);
    const tx = await s.request('POST', '/api/functions', {
      label: 't',
      name: 't',
      parameters: {},
      transaction_config: { enabled: true, auto_rollback: true, isolation_level: 'ReadCommitted' },
      functions: [
        { type: 'Insert', collection: 'a', record: {} },
        { type: 'LockAcquire', key: 'k', ttl_secs: 1 },
      ],
    });
    expect(tx.status).to.equal(400);
    expect(tx.body.error).to.equal(
      "functions[1]: step type 'LockAcquire' cannot take part in a transactional function",
    );
  });

  it('lists KV entries with KvQuery', async () => {
    for (const k of ['session:a', 'session:b', 'other']) await s.request('POST', `/api/kv/set/${k}`, { value: k });
    await save({ label: 'sessions', functions: [{ type: 'KvQuery', pattern: '^session:' }] });
    const r = await call('sessions');
    expect(r.status).to.equal(200);
    expect(r.body.records.map((x: any) => bare(x))).to.deep.equal([
      { key: 'session:a', value: 'session:a' },
      { key: 'session:b', value: 'session:b' },
    ]);
  });
});
