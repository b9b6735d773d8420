/**
 * The bcrypt worker pool (lib/functions/steps/crypto/bcrypt-runners.ts
 * over lib/functions/worker-pool.ts), started from the TypeScript
 * sources as mocha runs them (the built JavaScript is exercised through the
 * real command in spec/http/functions-bcrypt-load.spec.ts): the same digests
 * as the sliced runner, threads made only when needed, a job stopped by its
 * signal whether waiting or running, and close failing what is left.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Unavailable } from '../../../../lib/errors.js';
import { BcryptWorkerPool, SLICED_BCRYPT, type BcryptJob } from '../../../../lib/functions/index.js';

const job = (cost: number, password = 'correct horse battery staple'): BcryptJob => ({
  key: Buffer.from(`${password}\0`),
  salt: Buffer.alloc(16, 7),
  cost,
});

/** What a promise settles with: its value, or its rejection reason. */
function settled<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('functions: the bcrypt worker pool', () => {
  let pool: BcryptWorkerPool;
  beforeEach(() => {
    pool = new BcryptWorkerPool(2);
  });
  afterEach(async () => {
    await pool.close();
  });

  it('starts no thread before the first job, and gives the digests of the sliced runner', async () => {
    expect(pool.workers).to.equal(0);
    const [a, b] = await Promise.all([pool.raw(job(5)), pool.raw(job(5, 'other'))]);
    expect(pool.workers).to.equal(2);
    expect(Buffer.from(a).equals(await SLICED_BCRYPT.raw(job(5)))).to.equal(true);
    expect(Buffer.from(b).equals(await SLICED_BCRYPT.raw(job(5, 'other')))).to.equal(true);
    expect(a).to.have.length(23);
  });

  it('runs at most its size at once and the rest in order, reusing its threads', async () => {
    const outputs = await Promise.all([4, 5, 4, 5, 4].map((cost) => pool.raw(job(cost))));
    expect(outputs).to.have.length(5);
    expect(pool.workers).to.equal(2);
  });

  it('runs its threads with a nice value 10 above the process (Linux), so the request thread wins a shared core', async function () {
    if (!existsSync('/proc/self/task')) this.skip();
    /** Nice values of this process's threads (field 19 of /proc/<pid>/task/<tid>/stat). */
    const niceValues = () =>
      readdirSync('/proc/self/task').map((tid) => {
        try {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        } catch {
          return undefined;
        }
      });
    const base = niceValues()[0]!;
    const lowered = () => niceValues().filter((n) => n === Math.min(19, base + 10)).length;
    const before = lowered();
    await Promise.all([pool.raw(job(4)), pool.raw(job(4, 'other'))]);
    expect(lowered() - before).to.equal(2);
  });

  it('keeps the event loop free while a worker hashes', async () => {
    let turns = 0;
    let spinning = true;
    const spin = (): void => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    await pool.raw(job(10));
    spinning = false;
    expect(turns, 'event-loop turns during a cost-10 hash').to.be.greaterThan(20);
  });

  it('stops a running job when its signal aborts, and starts a new thread for the next one', async () => {
    await pool.raw(job(4));
    const controller = new AbortController();
    const running = settled(pool.raw(job(31), controller.signal));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('the call ran out of time'));
    const outcome = await running;
    expect((outcome.error as Error).message).to.equal('the call ran out of time');
    expect(pool.workers, 'the stopped worker is gone').to.equal(0);
    expect(await pool.raw(job(4))).to.have.length(23);
    expect(pool.workers).to.equal(1);
  });

  it('drops a waiting job when its signal aborts, without touching the running ones', async () => {
    const small = new BcryptWorkerPool(1);
    try {
      const first = small.raw(job(8));
      const controller = new AbortController();
      const waiting = settled(small.raw(job(31), controller.signal));
      controller.abort(new Error('gave up'));
      expect(((await waiting).error as Error).message).to.equal('gave up');
      expect(await first).to.have.length(23);
      expect(small.workers).to.equal(1);
    } finally {
      await small.close();
    }
  });

  it('refuses a job whose signal has already aborted', async () => {
    const outcome = await settled(pool.raw(job(4), AbortSignal.abort(new Error('too late'))));
    expect((outcome.error as Error).message).to.equal('too late');
    expect(pool.workers).to.equal(0);
  });

  it('fails the running and waiting jobs with Unavailable on close, and every later one', async () => {
    const one = new BcryptWorkerPool(1);
    const running = settled(one.raw(job(31)));
    const waiting = settled(one.raw(job(4)));
    await new Promise((r) => setTimeout(r, 20));
    await one.close();
    expect((await running).error).to.be.instanceOf(Unavailable);
    expect((await waiting).error).to.be.instanceOf(Unavailable);
    expect((await settled(one.raw(job(4)))).error).to.be.instanceOf(Unavailable);
    expect(one.workers).to.equal(0);
  });
});
