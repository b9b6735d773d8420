/**
 * The engine's observer hooks (lib/engine/observer.ts), on a database in a
 * temp directory: each log append and fsync is told with its latency, each
 * group with how many writes it carries, each snapshot with its duration;
 * a memory-only database tells its groups but appends nothing to a log.
 */
import { expect } from 'chai';
import { Database, type EngineObserver } from '../../lib/engine/index.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

/** Keeps what the engine tells. */
class Recorder implements EngineObserver {
  appends: Array<{ seconds: number; bytes: number }> = [];
  fsyncs: number[] = [];
  groups: number[] = [];
  snapshots: Array<{ seconds: number; failed: boolean }> = [];
  logAppend(seconds: number, bytes: number): void {
    this.appends.push({ seconds, bytes });
  }
  logFsync(seconds: number): void {
    this.fsyncs.push(seconds);
  }
  writeGroup(writes: number): void {
    this.groups.push(writes);
  }
  snapshot(seconds: number, failed: boolean): void {
    this.snapshots.push({ seconds, failed });
  }
}

describe('engine: the observer hooks', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-observer-');
  });
  afterEach(() => removeDir(dir));

  it('tells every append, fsync, group and snapshot of a database on disk', async () => {
    const observe = new Recorder();
    const db = await Database.open({ dataDir: dir, observe });
    const session = db.session(undefined);
    await Promise.all(Array.from({ length: 10 }, (_, i) => session.insert('items', { i })));
    await db.snapshot();
    await db.close();
    expect(observe.groups.reduce((a, b) => a + b, 0)).to.equal(10);
    expect(observe.appends).to.have.length(observe.groups.length);
    for (const { seconds, bytes } of observe.appends) {
      expect(seconds).to.be.at.least(0).and.lessThan(10);
      expect(bytes).to.be.greaterThan(0);
    }
    expect(observe.fsyncs.length).to.be.at.least(1);
    for (const seconds of observe.fsyncs) expect(seconds).to.be.at.least(0).and.lessThan(10);
    expect(observe.snapshots.filter((s) => !s.failed)).to.have.length.at.least(1);
  });

  it('tells the groups of a memory-only database, which appends to no log', async () => {
    const observe = new Recorder();
    const db = await Database.open({ memory: true, observe });
    await db.session(undefined).insert('items', { i: 1 });
    await db.close();
    expect(observe.groups).to.deep.equal([1]);
    expect(observe.appends).to.deep.equal([]);
    expect(observe.fsyncs).to.deep.equal([]);
  });
});
