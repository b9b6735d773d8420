import { expect } from 'chai';
import { ManualClock } from '../../../lib/engine/index.js';
import { RateLimited, StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const PARALLEL = 50;

/** Runs `n` calls at once (each starts before any finishes) and settles them all. */
function together<T>(n: number, call: (i: number) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(Array.from({ length: n }, (_, i) => call(i)));
}

const fulfilled = <T>(all: PromiseSettledResult<T>[]) =>
  all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
const rejected = <T>(all: PromiseSettledResult<T>[]) =>
  all.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error & Record<string, any>] : []));

describe('functions: caching and concurrency steps (IdempotencyClaim, RateLimit, LockAcquire, LockRelease)', () => {
  let h: FunctionHarness;
  let clock: ManualClock;
  beforeEach(async () => {
    // 10 s into a minute, so a 60 s window has 50 s left
    clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 10));
    h = await FunctionHarness.open({ clock });
  });
  afterEach(async () => {
    await h.close();
  });

  describe('IdempotencyClaim', () => {
    const define = () =>
      h.define({
        label: 'pay',
        parameters: { key: { required: true } },
        functions: [
          { type: 'IdempotencyClaim', key: 'idem:{{key}}', ttl_secs: 3600, output_field: 'claim' },
          {
            type: 'If',
            condition: { type: 'FieldEquals', value: { field: 'claim.claimed', value: true } },
            then_functions: [{ type: 'KvSet', key: 'idem:{{key}}', value: { paid: true, by: '{{key}}' }, ttl: 3600 }],
          },
        ],
      });

    it('lets exactly one of many concurrent calls claim a key', async () => {
      h.define({
        label: 'claim',
        parameters: { key: { required: true } },
        functions: [{ type: 'IdempotencyClaim', key: '{{key}}', ttl_secs: 60, output_field: 'c' }],
      });
      const all = await together(PARALLEL, () => h.call('claim', { key: 'order-1' }));
      const claims = fulfilled(all).map((r) => r.records[0]!.c as Record<string, unknown>);
      expect(claims).to.have.length(PARALLEL);
      expect(claims.filter((c) => c.claimed === true)).to.have.length(1);
      expect(claims.filter((c) => c.claimed === false)).to.have.length(PARALLEL - 1);
      for (const c of claims) expect(c.key).to.equal('order-1');
      expect(claims.find((c) => c.claimed === true)).to.deep.equal({ claimed: true, key: 'order-1' });
      expect(claims.find((c) => c.claimed === false)).to.deep.equal({ claimed: false, key: 'order-1', response: null });
    });

    it('replays the response the first caller stored under the key, until the TTL passes', async () => {
      define();
      expect((await h.call('pay', { key: 'k1' })).records).to.deep.equal([
        { claim: { claimed: true, key: 'idem:k1' } },
      ]);
      const replay = await h.call('pay', { key: 'k1' });
      expect(replay.records).to.deep.equal([
        { claim: { claimed: false, key: 'idem:k1', response: { paid: true, by: 'k1' } } },
      ]);
      expect((await h.call('pay', { key: 'k2' })).records[0]!.claim).to.include({ claimed: true });
      clock.advance(3600_000);
      expect((await h.call('pay', { key: 'k1' })).records[0]!.claim).to.include({ claimed: true });
    });

    it('writes the result into every working record', async () => {
      const s = h.db.session(undefined);
      await s.insert('items', { id: 'a' });
      await s.insert('items', { id: 'b' });
      const r = await h.run([
        { type: 'FindAll', collection: 'items' },
        { type: 'IdempotencyClaim', key: 'x', ttl_secs: 5, output_field: 'c' },
      ]);
      expect(r.records.map((x) => x.c)).to.deep.equal([
        { claimed: true, key: 'x' },
        { claimed: true, key: 'x' },
      ]);
    });

    it('checks ttl_secs at save when literal and at call time when a placeholder', async () => {
      expect(() =>
        h.define({ label: 'a', functions: [{ type: 'IdempotencyClaim', key: 'k', output_field: 'c' }] }),
      ).to.throw("functions[0]: missing required member 'ttl_secs'");
      expect(() => h.define({ label: 'b', functions: [{ type: 'IdempotencyClaim', key: 'k', ttl_secs: 0 }] })).to.throw(
        /functions\[0\]\.ttl_secs: must be a whole number from 1 to/,
      );
      expect(() =>
        h.define({ label: 'c', functions: [{ type: 'IdempotencyClaim', key: 'k', ttl_secs: 1.5 }] }),
      ).to.throw(/ttl_secs: must be a whole number/);
      const err = await rejection(h.run([{ type: 'IdempotencyClaim', key: 'k', ttl_secs: '{{t}}' }], { t: -1 }));
      expect(err).to.include({ type: 'IdempotencyClaim', status: 400 });
      expect(
        (await h.run([{ type: 'IdempotencyClaim', key: 'k', ttl_secs: '{{t}}' }], { t: '30' })).records[0]!.claim,
      ).to.include({ claimed: true });
    });
  });

  describe('RateLimit', () => {
    const LIMIT = 7;
    const define = (onExceed: 'fail' | 'skip') =>
      h.define({
        label: `rl_${onExceed}`,
        parameters: { user: { required: true } },
        functions: [
          {
            type: 'RateLimit',
            key: 'api:{{user}}',
            limit: LIMIT,
            window_secs: 60,
            output_field: 'rl',
            on_exceed: onExceed,
          },
        ],
      });

    it('lets exactly `limit` of many concurrent calls through and fails the rest with a 429 (on_exceed fail)', async () => {
      define('fail');
      const all = await together(PARALLEL, () => h.call('rl_fail', { user: 'u1' }));
      const passed = fulfilled(all);
      const failed = rejected(all);
      expect(passed).to.have.length(LIMIT);
      expect(failed).to.have.length(PARALLEL - LIMIT);
      expect(passed.map((r) => (r.records[0]!.rl as Record<string, unknown>).remaining).sort()).to.deep.equal([
        0, 1, 2, 3, 4, 5, 6,
      ]);
      const err = failed[0]!;
      expect(err).to.be.instanceOf(StepFailed);
      expect(err).to.include({ type: 'RateLimit', status: 429, message: 'Rate limit exceeded: 7 calls per 60 s' });
      expect(err.cause).to.be.instanceOf(RateLimited);
      expect(err.cause).to.include({
        retryAfter: 50,
        limit: LIMIT,
        remaining: 0,
        resetAt: Date.UTC(2026, 5, 1, 12, 1) / 1000,
      });
      expect(err.details).to.deep.equal({
        limit: LIMIT,
        remaining: 0,
        window_secs: 60,
        reset_at: Date.UTC(2026, 5, 1, 12, 1) / 1000,
        retry_after_secs: 50,
      });
    });

    it('writes {allowed: false, ...} and goes on with on_exceed skip', async () => {
      define('skip');
      const all = fulfilled(await together(PARALLEL, () => h.call('rl_skip', { user: 'u1' })));
      const results = all.map((r) => r.records[0]!.rl as Record<string, unknown>);
      expect(results.filter((r) => r.allowed === true)).to.have.length(LIMIT);
      const denied = results.filter((r) => r.allowed === false);
      expect(denied).to.have.length(PARALLEL - LIMIT);
      expect(denied[0]).to.deep.equal({
        allowed: false,
        key: 'api:u1',
        limit: LIMIT,
        remaining: 0,
        window_secs: 60,
        reset_at: Date.UTC(2026, 5, 1, 12, 1) / 1000,
        retry_after_secs: 50,
      });
    });

    it('counts per key under rate:<key>:<window start> and starts afresh in the next window', async () => {
      define('skip');
      const start = Date.UTC(2026, 5, 1, 12, 0) / 1000;
      for (let i = 0; i < LIMIT + 3; i++) await h.call('rl_skip', { user: 'u1' });
      expect((await h.call('rl_skip', { user: 'u2' })).records[0]!.rl).to.include({
        allowed: true,
        remaining: LIMIT - 1,
      });
      // refused calls write nothing: the counter stays at the limit
      const counter = h.db.kv.entry(`rate:api:u1:${start}`)!;
      expect(counter.value).to.equal(LIMIT);
      expect(counter.expiresAt).to.equal((start + 60) * 1000);
      clock.advance(49_999);
      expect((await h.call('rl_skip', { user: 'u1' })).records[0]!.rl).to.include({
        allowed: false,
        retry_after_secs: 1,
      });
      clock.advance(1);
      expect((await h.call('rl_skip', { user: 'u1' })).records[0]!.rl).to.include({
        allowed: true,
        remaining: LIMIT - 1,
        reset_at: start + 120,
      });
      expect(h.db.kv.entry(`rate:api:u1:${start}`)).to.equal(undefined);
    });

    it('refuses a bad limit, window or on_exceed at save, and a key holding something else at call time', async () => {
      const base = { type: 'RateLimit', key: 'k', limit: 1, window_secs: 1 };
      expect(() => h.define({ label: 'a', functions: [{ ...base, limit: 0 }] })).to.throw(
        /functions\[0\]\.limit: must be a whole number from 1/,
      );
      expect(() => h.define({ label: 'b', functions: [{ ...base, window_secs: 'an hour' }] })).to.throw(
        /functions\[0\]\.window_secs: must be a whole number/,
      );
      expect(() => h.define({ label: 'c', functions: [{ ...base, on_exceed: 'queue' }] })).to.throw(
        "functions[0].on_exceed: must be 'fail' or 'skip'",
      );
      expect(() => h.define({ label: 'd', functions: [{ type: 'RateLimit', key: 'k', window_secs: 1 }] })).to.throw(
        "functions[0]: missing required member 'limit'",
      );
      const start = Math.floor(clock.now() / 1000);
      await h.db.kv.set(`rate:k:${start}`, 'not a number');
      const err = await rejection(h.run([base]));
      expect(err).to.include({ type: 'RateLimit', status: 400 });
      expect(err.message).to.match(/does not hold a counter/);
    });
  });

  describe('LockAcquire and LockRelease', () => {
    beforeEach(() => {
      h.define({
        label: 'acquire',
        parameters: { r: { required: true } },
        functions: [{ type: 'LockAcquire', key: 'lock:{{r}}', ttl_secs: 30, output_field: 'lock' }],
      });
      h.define({
        label: 'release',
        parameters: { r: { required: true }, token: { required: true } },
        functions: [{ type: 'LockRelease', key: 'lock:{{r}}', token: '{{token}}', output_field: 'rel' }],
      });
    });
    const acquire = async (r = 'res') =>
      (await h.call('acquire', { r })).records[0]!.lock as { acquired: boolean; token: string | null; key: string };
    const release = async (token: unknown, r = 'res') =>
      (await h.call('release', { r, token })).records[0]!.rel as { released: boolean };

    it('gives the lock to exactly one of many concurrent callers, with a token', async () => {
      const locks = fulfilled(await together(PARALLEL, () => acquire()));
      const winners = locks.filter((l) => l.acquired);
      expect(winners).to.have.length(1);
      expect(winners[0]!.token).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(locks.filter((l) => !l.acquired).every((l) => l.token === null && l.key === 'lock:res')).to.equal(true);
    });

    it('never lets two holders overlap while many workers take turns', async () => {
      let holders = 0;
      let maxHolders = 0;
      let turns = 0;
      const worker = async () => {
        for (;;) {
          const lock = await acquire();
          if (!lock.acquired) {
            await new Promise((r) => setImmediate(r));
            continue;
          }
          holders++;
          maxHolders = Math.max(maxHolders, holders);
          await new Promise((r) => setTimeout(r, 1));
          holders--;
          turns++;
          expect((await release(lock.token)).released).to.equal(true);
          return;
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      expect(turns).to.equal(20);
      expect(maxHolders).to.equal(1);
    });

    it('releases only with the holder token, and a null token releases nothing without failing', async () => {
      const lock = await acquire();
      expect(await release('not-the-token')).to.include({ released: false });
      expect(await release(null)).to.include({ released: false });
      expect((await acquire()).acquired).to.equal(false);
      expect(await release(lock.token)).to.include({ released: true });
      expect(await release(lock.token)).to.include({ released: false });
      expect((await acquire()).acquired).to.equal(true);
      const err = await rejection(h.call('release', { r: 'res', token: 12 }));
      expect(err).to.include({ type: 'LockRelease', status: 400 });
    });

    it('expires after ttl_secs, and a late holder cannot release the next holder lock', async () => {
      const first = await acquire();
      clock.advance(29_999);
      expect((await acquire()).acquired).to.equal(false);
      clock.advance(1);
      const second = await acquire();
      expect(second.acquired).to.equal(true);
      expect(await release(first.token)).to.include({ released: false });
      expect((await acquire()).acquired).to.equal(false);
      expect(await release(second.token)).to.include({ released: true });
    });

    it('works on the dotted output of LockAcquire in one function', async () => {
      const r = await h.run([
        { type: 'LockAcquire', key: 'job', ttl_secs: 10 },
        {
          type: 'If',
          condition: { type: 'FieldEquals', value: { field: 'lock.acquired', value: true } },
          then_functions: [{ type: 'KvSet', key: 'ran', value: true }],
        },
        { type: 'LockRelease', key: 'job', token: '{{lock.token}}' },
      ]);
      expect(r.records[0]!.lock_release).to.deep.equal({ released: true, key: 'job' });
      expect(h.db.kv.get('ran')).to.equal(true);
      expect(h.db.kv.entry('job')).to.equal(undefined);
    });
  });

  it('keeps every concurrency step out of a transactional function (refused at save)', () => {
    const tx = { enabled: true, auto_rollback: true, isolation_level: 'ReadCommitted' };
    const steps = [
      { type: 'IdempotencyClaim', key: 'k', ttl_secs: 1 },
      { type: 'RateLimit', key: 'k', limit: 1, window_secs: 1 },
      { type: 'LockAcquire', key: 'k', ttl_secs: 1 },
      { type: 'LockRelease', key: 'k', token: 't' },
    ];
    for (const s of steps) {
      expect(() => h.define({ label: `tx_${s.type}`, transaction_config: tx, functions: [s] })).to.throw(
        `step type '${s.type}' cannot take part in a transactional function`,
      );
    }
  });
});
