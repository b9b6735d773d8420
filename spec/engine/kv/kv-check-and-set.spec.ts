import { expect } from 'chai';
import { Database, ManualClock } from '../../../lib/engine/index.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('engine: KV check-and-set (setIfAbsent, incrementBelow, deleteIf)', () => {
  let db: Database;
  let dir: string;
  let clock: ManualClock;
  beforeEach(async () => {
    dir = tempDir('eddydb-kv-cas-');
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    db = await Database.open({ dataDir: dir, settings: { durability: 'none' }, clock });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('setIfAbsent: of many calls queued in one writer group exactly one creates, the others see its value', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => db.kv.setIfAbsent('k', `v${i}`, 10)));
    expect(results.filter((r) => r.created)).to.have.length(1);
    const winner = db.kv.get('k');
    for (const r of results) if (!r.created) expect(r.value).to.equal(winner);
    expect(db.kv.entry('k')!.expiresAt).to.equal(clock.now() + 10_000);
  });

  it('setIfAbsent takes an expired key and keeps a live one', async () => {
    await db.kv.set('k', 'old', 5);
    expect(await db.kv.setIfAbsent('k', 'new')).to.deep.equal({ created: false, value: 'old' });
    clock.advance(5_000);
    expect(await db.kv.setIfAbsent('k', 'new')).to.deep.equal({ created: true });
    expect(db.kv.entry('k')).to.deep.equal({ value: 'new' });
  });

  it('incrementBelow: concurrent increments stop exactly at the limit, and a refused one writes nothing', async () => {
    const expiry = clock.now() + 60_000;
    const results = await Promise.all(Array.from({ length: 100 }, () => db.kv.incrementBelow('c', 30, expiry)));
    expect(results.filter((r) => r.incremented)).to.have.length(30);
    expect(
      results
        .filter((r) => r.incremented)
        .map((r) => r.count)
        .sort((a, b) => a - b),
    ).to.deep.equal(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(results.filter((r) => !r.incremented).every((r) => r.count === 30)).to.equal(true);
    const seq = db.state.seq;
    await db.kv.incrementBelow('c', 30, expiry);
    expect(db.state.seq).to.equal(seq);
    expect(db.kv.entry('c')).to.deep.equal({ value: 30, expiresAt: expiry });
  });

  it('incrementBelow keeps an existing counter expiry, restarts an expired one, and refuses a non-counter', async () => {
    const first = clock.now() + 1_000;
    await db.kv.incrementBelow('c', 5, first);
    await db.kv.incrementBelow('c', 5, first + 99_000);
    expect(db.kv.entry('c')).to.deep.equal({ value: 2, expiresAt: first });
    clock.advance(1_000);
    expect(await db.kv.incrementBelow('c', 5, first + 5_000)).to.deep.equal({ count: 1, incremented: true });
    await db.kv.set('s', 'text');
    await db.kv.set('neg', -1);
    for (const key of ['s', 'neg']) {
      try {
        await db.kv.incrementBelow(key, 5, first);
        expect.fail('expected a refusal');
      } catch (err) {
        expect(err).to.include({ code: 'INVALID_INPUT', message: `KV key '${key}' does not hold a counter` });
      }
    }
  });

  it('deleteIf deletes only a live value that passes the test, in the writer', async () => {
    await db.kv.set('lock', 'token-a', 10);
    expect(await db.kv.deleteIf('lock', (v) => v === 'token-b')).to.equal(false);
    expect(db.kv.get('lock')).to.equal('token-a');
    const both = await Promise.all([
      db.kv.deleteIf('lock', (v) => v === 'token-a'),
      db.kv.deleteIf('lock', (v) => v === 'token-a'),
    ]);
    expect(both.sort()).to.deep.equal([false, true]);
    await db.kv.set('lock', 'token-a', 1);
    clock.advance(1_000);
    expect(await db.kv.deleteIf('lock', () => true)).to.equal(false);
  });

  it('survives a restart: what the check-and-set wrote is in the log', async () => {
    await db.kv.setIfAbsent('claim', null, 60);
    await db.kv.incrementBelow('rate', 3, clock.now() + 60_000);
    await db.close();
    db = await Database.open({ dataDir: dir, settings: { durability: 'none' }, clock });
    expect(db.kv.entry('claim')).to.deep.equal({ value: null, expiresAt: clock.now() + 60_000 });
    expect(db.kv.get('rate')).to.equal(1);
  });
});
