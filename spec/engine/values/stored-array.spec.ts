/**
 * Stored arrays of numbers stay arrays of doubles (values/stored-array.ts):
 * the rule itself, and, in a child process that can ask V8, the records a
 * database writes, snapshots and recovers.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { storedArray, storedNumbers } from '../../../lib/engine/values/index.js';

describe('stored arrays', () => {
  it('freezes an array holding anything but numbers, and copies an array of numbers unfrozen', () => {
    const mixed = [1, 'a'];
    expect(storedArray(mixed)).to.equal(mixed);
    expect(Object.isFrozen(mixed)).to.equal(true);
    const numbers = [1.5, -0, 3];
    const stored = storedArray(numbers);
    expect(stored).to.not.equal(numbers);
    expect(stored).to.deep.equal([1.5, -0, 3]);
    expect(Object.is(stored[1], -0)).to.equal(true);
    expect(Object.isFrozen(stored)).to.equal(false);
    expect(storedArray([])).to.deep.equal([]);
  });

  it('copies numbers whatever array holds them', () => {
    const held = [1.25, 'x', 2.5];
    held[1] = 7;
    expect(storedNumbers(held as number[])).to.deep.equal([1.25, 7, 2.5]);
  });

  it('copies lists of every length, short and past the reused buffer, each into storage of its own', () => {
    const made = [0, 1, 384, 1024, 1025, 65_536, 65_537, 200_000].map((n) => {
      const items = Array.from({ length: n }, (_, i) => i / 4 - n);
      return { items, stored: storedNumbers(items) };
    });
    // Checked after all were made: a later copy must not show through an earlier one.
    for (const { items, stored } of made) {
      expect(stored).to.have.length(items.length);
      expect(stored).to.deep.equal(items);
    }
    expect(storedNumbers([9, 8])).to.deep.equal([9, 8]);
    expect(made[2]!.stored[0]).to.equal(-384);
  });

  it('keeps the vectors and number lists of records written, snapshotted and recovered as doubles', function () {
    this.timeout(60_000);
    const child = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', 'spec/helpers/stored-doubles-child.ts'],
      { encoding: 'utf8' },
    );
    expect(child.status, child.stderr).to.equal(0);
    const report = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
      records: number;
      written: { vectors: number; lists: number };
      recovered: { vectors: number; lists: number };
    };
    expect(report.records).to.equal(6030);
    expect(report.written).to.deep.equal({ vectors: 0, lists: 0 });
    expect(report.recovered).to.deep.equal({ vectors: 0, lists: 0 });
  });
});
