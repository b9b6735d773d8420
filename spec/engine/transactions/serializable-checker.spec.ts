/**
 * A randomized check that Serializable keeps two invariants under many short,
 * interleaved transactions over few records:
 * - bank: transfers read both balances with a query and move money only
 *   when the source covers it; the total never changes and no balance goes
 *   negative;
 * - at most one active: each transaction finds `active == true` and
 *   activates one random record only when none is active (or deactivates
 *   the active one); never two active at once.
 * A seeded scheduler interleaves the steps of concurrent transactions (begin,
 * read, stage, commit) and commits run concurrently through the writer, so
 * groups hold several commits. The invariants are checked after every
 * successful commit, and a decent share of transactions must commit. One
 * engine round per seed, then a smaller round over real HTTP.
 */
import { expect } from 'chai';
import { mulberry32 } from '../../helpers/seeded-random.js';
import { Database, ManualClock, parseQuery, type Query } from '../../../lib/engine/index.js';
import { Conflict } from '../../../lib/errors.js';
import { TestServer } from '../../helpers/test-server.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

const ACCOUNTS = 4,
  FLAGS = 5,
  START_BALANCE = 100;
const accountIds = Array.from({ length: ACCOUNTS }, (_, i) => `acct${i}`);
const flagIds = Array.from({ length: FLAGS }, (_, i) => `flag${i}`);

/** Interleaves waiting transactions: each `gate()` parks one until the seeded scheduler picks it. */
class Scheduler {
  private waiting: Array<() => void> = [];
  constructor(private readonly rand: () => number) {}

  gate(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async run(finished: () => boolean): Promise<void> {
    while (!finished()) {
      if (this.waiting.length > 0) this.waiting.splice(Math.floor(this.rand() * this.waiting.length), 1)[0]!();
      await new Promise((r) => setImmediate(r));
    }
  }
}

interface Tally {
  attempts: number;
  commits: number;
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

describe('engine/transactions Serializable randomized checker', () => {
  const bothBalances = (a: string, b: string): Query =>
    parseQuery({ filter: { field: 'id', operator: 'In', value: [a, b] } });
  const activeOnes = parseQuery({ filter: { field: 'active', operator: 'Eq', value: true } });

  async function checkInvariants(db: Database): Promise<void> {
    const balances = accountIds.map((id) => db.records.findById('accounts', id).balance as number);
    expect(
      balances.reduce((s, b) => s + b, 0),
      `balances ${balances}`,
    ).to.equal(ACCOUNTS * START_BALANCE);
    expect(Math.min(...balances)).to.be.at.least(0);
    expect((await db.records.find('flags', activeOnes)).length, 'records active at once').to.be.at.most(1);
  }

  async function engineRound(seed: number, workers: number, attemptsEach: number): Promise<Tally> {
    const dir = tempDir();
    const db = await Database.open({ dataDir: dir, clock: new ManualClock(), settings: { durability: 'none' } });
    const rand = mulberry32(seed);
    const scheduler = new Scheduler(rand);
    const txm = db.transactions;
    const tally: Tally = { attempts: 0, commits: 0 };
    try {
      for (const id of accountIds) await db.records.insert('accounts', { id, balance: START_BALANCE });
      for (const id of flagIds) await db.records.insert('flags', { id, active: false });

      const transfer = async (): Promise<void> => {
        const from = pick(rand, accountIds),
          to = pick(
            rand,
            accountIds.filter((a) => a !== from),
          );
        const amount = 1 + Math.floor(rand() * 40);
        const tx = txm.begin('Serializable', undefined);
        await scheduler.gate();
        const rows = txm.find(tx.id, 'accounts', bothBalances(from, to));
        const balance = (id: string) => rows.find((r) => r.id === id)!.balance as number;
        await scheduler.gate();
        if (balance(from) >= amount) {
          txm.stageUpdate(tx.id, 'accounts', from, { balance: balance(from) - amount });
          await scheduler.gate();
          txm.stageUpdate(tx.id, 'accounts', to, { balance: balance(to) + amount });
        }
        await scheduler.gate();
        await commit(tx.id);
      };

      const toggle = async (): Promise<void> => {
        const tx = txm.begin('Serializable', undefined);
        await scheduler.gate();
        const active = txm.find(tx.id, 'flags', activeOnes);
        await scheduler.gate();
        if (active.length === 0) txm.stageUpdate(tx.id, 'flags', pick(rand, flagIds), { active: true });
        else if (rand() < 0.5) txm.stageUpdate(tx.id, 'flags', active[0]!.id as string, { active: false });
        await scheduler.gate();
        await commit(tx.id);
      };

      const commit = async (id: string): Promise<void> => {
        tally.attempts += 1;
        try {
          await txm.commit(id);
        } catch (err) {
          if (err instanceof Conflict) return;
          throw err;
        }
        tally.commits += 1;
        await checkInvariants(db);
      };

      let running = workers;
      const worker = async () => {
        try {
          for (let i = 0; i < attemptsEach; i++) await (rand() < 0.5 ? transfer() : toggle());
        } finally {
          running -= 1;
        }
      };
      const all = Promise.all(Array.from({ length: workers }, worker));
      await scheduler.run(() => running === 0);
      await all;
      await checkInvariants(db);
      expect(txm.changeHistorySize, 'history released once every transaction ended').to.equal(0);
      return tally;
    } finally {
      await db.close();
      removeDir(dir);
    }
  }

  for (const seed of [1, 2, 3]) {
    it(`keeps the bank total and at most one active record across 320 interleaved transactions (seed ${seed})`, async () => {
      const { attempts, commits } = await engineRound(seed, 8, 40);
      expect(attempts).to.equal(320);
      // A liveness bound (no livelock), not a throughput figure. The scheduler advances one transaction step per
      // event-loop turn, and with groups in flight the writer cuts the next group only after a turn (pipelined
      // group commit, write-queue.ts), so each commit stays in flight for turns in which its neighbours take steps
      // and conflict with it: 16-37% commit here (37-43% before pipelining); real commits spend microseconds there.
      expect(commits / attempts, `${commits} of ${attempts} committed`).to.be.at.least(0.1);
    });
  }

  describe('over real HTTP', () => {
    let t: TestServer;
    before(async () => {
      t = await TestServer.start({ settings: { durability: 'none' } });
    });
    after(async () => {
      await t.stop();
    });

    async function call(method: string, url: string, body?: unknown): Promise<any> {
      const r = await t.request(method, url, body);
      if (r.status >= 300)
        throw Object.assign(new Error(`${method} ${url}: ${r.status} ${r.text}`), { status: r.status });
      return r.body;
    }

    it('keeps both invariants across concurrent transactions made of HTTP requests', async () => {
      const rand = mulberry32(42);
      for (const id of accountIds) await call('POST', '/api/insert/accounts', { id, balance: START_BALANCE });
      for (const id of flagIds) await call('POST', '/api/insert/flags', { id, active: false });
      const cond = (field: string, operator: string, value: unknown) => ({
        filter: { type: 'Condition', content: { field, operator, value } },
      });
      const tally: Tally = { attempts: 0, commits: 0 };

      const commit = async (tx: string) => {
        tally.attempts += 1;
        const r = await t.request('POST', `/api/transactions/${tx}/commit`);
        if (r.status === 409) return;
        expect(r.status, r.text).to.equal(200);
        tally.commits += 1;
        await checkInvariants(t.server.db);
      };
      const transfer = async () => {
        const from = pick(rand, accountIds),
          to = pick(
            rand,
            accountIds.filter((a) => a !== from),
          );
        const amount = 1 + Math.floor(rand() * 40);
        const tx = (await call('POST', '/api/transactions', { isolation_level: 'Serializable' })).transaction_id;
        const rows: Array<{ id: string; balance: number | { value: number } }> = await call(
          'POST',
          `/api/find/accounts?transaction_id=${tx}`,
          cond('id', 'In', [from, to]),
        );
        const balance = (id: string) => {
          const b = rows.find((r) => r.id === id)!.balance;
          return typeof b === 'number' ? b : b.value;
        };
        if (balance(from) >= amount) {
          await call('PUT', `/api/update/accounts/${from}?transaction_id=${tx}`, { balance: balance(from) - amount });
          await call('PUT', `/api/update/accounts/${to}?transaction_id=${tx}`, { balance: balance(to) + amount });
        }
        await commit(tx);
      };
      const toggle = async () => {
        const tx = (await call('POST', '/api/transactions', { isolation_level: 'Serializable' })).transaction_id;
        const active: Array<{ id: string }> = await call(
          'POST',
          `/api/find/flags?transaction_id=${tx}`,
          cond('active', 'Eq', true),
        );
        if (active.length === 0)
          await call('PUT', `/api/update/flags/${pick(rand, flagIds)}?transaction_id=${tx}`, { active: true });
        else if (rand() < 0.5)
          await call('PUT', `/api/update/flags/${active[0]!.id}?transaction_id=${tx}`, { active: false });
        await commit(tx);
      };
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (let i = 0; i < 10; i++) await (rand() < 0.5 ? transfer() : toggle());
        }),
      );

      await checkInvariants(t.server.db);
      expect(tally.attempts).to.equal(60);
      expect(tally.commits, `${tally.commits} of ${tally.attempts} committed`).to.be.at.least(15);
    });
  });
});
