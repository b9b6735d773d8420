/** The audit trail's appends: a burst of events is one write, in order, and a read sees what was just recorded. */
import { expect } from 'chai';
import { AuditLog, auditLine, type AuditEvent } from '../../../lib/engine/transactions/audit.js';
import { MemoryFs } from '../../../lib/engine/storage/memory-fs.js';
import type { StorageFile } from '../../../lib/engine/storage/fs.js';
import { ManualClock } from '../../../lib/engine/time/clock.js';

/** A memory file system that counts the writes made to appended files. */
class CountingFs extends MemoryFs {
  writes = 0;
  override async openAppend(file: string): Promise<StorageFile> {
    const inner = await super.openAppend(file);
    return {
      write: (data) => {
        this.writes++;
        return inner.write(data);
      },
      sync: () => inner.sync(),
      truncate: (n) => inner.truncate(n),
      close: () => inner.close(),
    };
  }
}

const event = (i: number): AuditEvent => ({
  event: 'commit',
  transaction_id: `tx-${i}`,
  isolation_level: 'Serializable',
  operations_count: i,
});

describe('audit trail appends', () => {
  it("writes each event's line as JSON.stringify writes the event with its timestamp", () => {
    const hostile = 'a"b\\c\nd\u2028e\u0000f\ud800';
    const events: AuditEvent[] = [
      event(3),
      { ...event(0), savepoint: hostile },
      { ...event(7), error: hostile },
      {
        event: 'savepoint_rollback',
        transaction_id: hostile,
        savepoint: 'sp',
        isolation_level: 'ReadCommitted',
        operations_count: 2,
        error: 'x',
      },
    ];
    for (const e of events) {
      const { event: name, transaction_id, savepoint, isolation_level, operations_count, error } = e;
      const ordered = {
        timestamp: '2026-01-01T00:00:00.000Z',
        event: name,
        transaction_id,
        savepoint,
        isolation_level,
        operations_count,
        error,
      };
      expect(auditLine('2026-01-01T00:00:00.000Z', e)).to.equal(JSON.stringify(ordered) + '\n');
    }
  });

  it('writes a burst of events in one append, in order, even when they arrive over several turns', async () => {
    const fs = new CountingFs();
    await fs.mkdir('/data');
    const audit = new AuditLog(fs, '/data', new ManualClock(0));
    for (let i = 0; i < 50; i++) {
      audit.record(event(i));
      // Each commit's answer is its own turn of the event loop.
      if (i % 5 === 4) await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 30));
    expect(fs.writes).to.equal(1);
    const read = await audit.read({ limit: 100 });
    expect(read.map((e) => e.transaction_id)).to.deep.equal(Array.from({ length: 50 }, (_, i) => `tx-${49 - i}`));
    await audit.close();
  });

  it('lets a read see an event recorded just before it, without waiting for the burst to end', async () => {
    const fs = new CountingFs();
    await fs.mkdir('/data');
    const audit = new AuditLog(fs, '/data', new ManualClock(0));
    audit.record(event(1));
    const read = await audit.read();
    expect(read).to.have.length(1);
    expect(read[0]).to.include({ event: 'commit', transaction_id: 'tx-1', timestamp: new Date(0).toISOString() });
    await audit.close();
  });

  it('stamps each event with the clock in ISO 8601, to the millisecond, across seconds', async () => {
    const fs = new CountingFs();
    await fs.mkdir('/data');
    const clock = new ManualClock(Date.UTC(2026, 10, 29, 23, 59, 59, 998));
    const audit = new AuditLog(fs, '/data', clock);
    const times: number[] = [];
    for (const step of [0, 1, 1, 9, 90, 900, 0, 86_400_000 * 400 + 7]) {
      clock.advance(step);
      times.push(clock.now());
      audit.record(event(times.length));
    }
    const read = await audit.read({ limit: 100 });
    expect(read.map((e) => e.timestamp).reverse()).to.deep.equal(times.map((t) => new Date(t).toISOString()));
    await audit.close();
  });
});
