/**
 * StorageHealth, the read-only state machine, with an injected repair:
 * retries on a doubling, capped backoff until the repair succeeds; events
 * carry the cause once, a summary per interval and the recovery; a fault
 * soon after healing resumes the backoff. Timers are real but short, and
 * only lower bounds of delays are asserted (timers never fire early).
 */
import { expect } from 'chai';
import { StorageHealth, type StorageEvent } from '../../../lib/engine/storage/storage-health.js';
import { ManualClock } from '../../../lib/engine/index.js';
import { ReadOnlyRefusal, STATUS_BY_CODE } from '../../../lib/errors.js';
import { fsError } from '../../helpers/faulty-fs.js';
import type { StorageFault } from '../../../lib/engine/storage/storage-fault.js';

const fault = (code: 'ENOSPC' | 'EIO' = 'ENOSPC'): StorageFault => ({
  operation: 'write',
  file: 'log-0000000000000001.seg',
  code,
  message: `${code}: test`,
  error: fsError(code, 'write'),
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('engine/storage-health', () => {
  let health: StorageHealth;
  afterEach(() => health?.stop());

  it('retries on a doubling backoff capped at maxMs, and leaves read-only when a repair succeeds', async () => {
    const clock = new ManualClock();
    health = new StorageHealth(clock, { firstMs: 10, maxMs: 40, summaryMs: 10_000 });
    const at: number[] = [];
    let failuresLeft = 4;
    health.repairWith(async () => {
      at.push(Date.now());
      if (failuresLeft-- > 0) throw fsError('ENOSPC', 'write');
    });
    const started = Date.now();
    health.fail(fault());
    expect(health.readOnly).to.equal(true);
    await until(() => !health.readOnly);
    expect(at).to.have.length(5);
    const gaps = [at[0]! - started, ...at.slice(1).map((t, i) => t - at[i]!)];
    [10, 20, 40, 40, 40].forEach((min, i) => expect(gaps[i], `gap ${i}`).to.be.at.least(min - 1));
    expect(health.status()).to.deep.equal({ state: 'ok', healAttempts: 0 });
  });

  it('tells the cause once, one summary per interval with the refused count, and the recovery with the total', async () => {
    const clock = new ManualClock();
    health = new StorageHealth(clock, { firstMs: 60, maxMs: 60, summaryMs: 25 });
    const events: StorageEvent[] = [];
    health.onEvent((e) => events.push(e));
    let healOk = false;
    health.repairWith(async () => {
      if (!healOk) throw fsError('ENOSPC', 'write');
    });
    health.fail(fault());
    health.fail(fault('EIO'));
    for (let i = 0; i < 7; i++) expect(health.refuse()).to.be.instanceOf(ReadOnlyRefusal);
    await until(() => events.some((e) => e.kind === 'still_read_only'));
    clock.advance(5000);
    health.refuse();
    healOk = true;
    await until(() => !health.readOnly, 5000);
    const kinds = events.map((e) => e.kind);
    expect(kinds[0]).to.equal('read_only');
    expect(
      kinds.filter((k) => k === 'read_only'),
      'a second fault while read-only is not a new episode',
    ).to.have.length(1);
    const firstSummary = events.find((e) => e.kind === 'still_read_only')!;
    expect(firstSummary).to.include({ refused: 7, windowMs: 25 });
    const healed = events.at(-1)!;
    expect(healed).to.include({ kind: 'healed', refused: 8, downMs: 5000 });
    if (healed.kind === 'healed') expect(healed.cause.code).to.equal('ENOSPC');
  });

  it('reports state, cause, since and attempts while read-only', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    health = new StorageHealth(clock, { firstMs: 5, maxMs: 5 });
    health.repairWith(async () => {
      throw fsError('EIO', 'fsync');
    });
    health.fail(fault());
    await until(() => health.status().healAttempts >= 2);
    const s = health.status();
    expect(s).to.include({ state: 'read_only', since: Date.UTC(2026, 0, 1), lastAttemptAt: Date.UTC(2026, 0, 1) });
    expect(s.cause?.code).to.equal('ENOSPC');
    expect(s.lastAttemptError?.code).to.equal('EIO');
    const refusal = health.refuse();
    expect(STATUS_BY_CODE[refusal.code]).to.equal(503);
    expect(refusal.cause).to.have.property('code', 'ENOSPC');
  });

  it('resumes the backoff where it stopped when a fault follows soon after healing', async () => {
    const clock = new ManualClock();
    health = new StorageHealth(clock, { firstMs: 10, maxMs: 80, summaryMs: 10_000 });
    let failuresLeft = 3;
    health.repairWith(async () => {
      if (failuresLeft-- > 0) throw fsError('ENOSPC', 'write');
    });
    health.fail(fault());
    await until(() => !health.readOnly);
    const events: StorageEvent[] = [];
    health.onEvent((e) => events.push(e));
    health.fail(fault());
    expect(events[0]).to.include({ kind: 'read_only', retryInMs: 80 });
    await until(() => !health.readOnly);
    clock.advance(81);
    health.fail(fault());
    expect(events.at(-1)).to.include({ kind: 'read_only', retryInMs: 10 });
  });
});
