/**
 * When a growing database snapshots (snapshotThreshold): a configured size
 * is kept as it is; unset, 64 MiB, or half the last snapshot once that is
 * more, so snapshot work stays in proportion to the log.
 */
import { expect } from 'chai';
import { SNAPSHOT_BYTES, snapshotThreshold } from '../../../../lib/engine/storage/snapshot/snapshot.js';

const MB = 2 ** 20;

describe('engine/storage/snapshot threshold', () => {
  it('keeps a configured size whatever the last snapshot', () => {
    expect(snapshotThreshold(200_000, 0)).to.equal(200_000);
    expect(snapshotThreshold(200_000, 500 * MB)).to.equal(200_000);
  });

  it('waits for 64 MiB of log, or half the last snapshot once that is more', () => {
    expect(SNAPSHOT_BYTES).to.equal(64 * MB);
    expect(snapshotThreshold(undefined, 0)).to.equal(64 * MB);
    expect(snapshotThreshold(undefined, 120 * MB)).to.equal(64 * MB);
    expect(snapshotThreshold(undefined, 500 * MB)).to.equal(250 * MB);
  });
});
