import { expect } from 'chai';
import { coverage, dataFiles, redundantFiles } from '../../../lib/engine/storage/generations.js';

const seg = (seq: number) => `log-${String(seq).padStart(16, '0')}.seg`;
const snap = (seq: number) => `snapshot-${String(seq).padStart(16, '0')}.snap`;

describe('engine/storage/generations', () => {
  it('lists bases newest first, ending with the empty state, and takes the floor from the newest snapshot name', () => {
    const f = dataFiles([seg(1), snap(20), 'secrets', seg(21), snap(10), seg(11), 'snapshot-x.snap.tmp']);
    expect(f.bases.map((b) => b.seq)).to.deep.equal([20, 10, 0]);
    expect(f.bases.at(-1)!.snapshot).to.equal(undefined);
    expect(f.segments.map((s) => s.start)).to.deep.equal([1, 11, 21]);
    expect(f.floor).to.equal(20);
  });

  it('covers a base when a segment starts at or before its seq + 1, replaying from the last such segment', () => {
    const { segments } = dataFiles([seg(1), seg(11), seg(21)]);
    expect(coverage(0, segments)).to.deep.equal({ ok: true, first: 0 });
    expect(coverage(10, segments)).to.deep.equal({ ok: true, first: 1 });
    expect(coverage(15, segments)).to.deep.equal({ ok: true, first: 1 });
    expect(coverage(20, segments)).to.deep.equal({ ok: true, first: 2 });
  });

  it('does not cover a base whose first needed seq comes before the oldest segment, naming the missing seqs', () => {
    const { segments } = dataFiles([seg(21)]);
    const c = coverage(0, segments);
    expect(c.ok).to.equal(false);
    expect(c).to.include({ missingFrom: 1, missingTo: 20 });
    if (!c.ok) expect(c.reason).to.include('seqs 1..20 are missing');
  });

  it('keeps the whole log from seq 1 while only one snapshot exists (the empty state is the previous generation)', () => {
    expect(redundantFiles([seg(1), snap(20), seg(21)], 2)).to.deep.equal([]);
  });

  it('after a second snapshot deletes only what the first generation does not need', () => {
    expect(redundantFiles([seg(1), snap(20), seg(21), snap(40), seg(41)], 2)).to.deep.equal([seg(1)]);
    expect(redundantFiles([seg(21), snap(20), snap(40), seg(41), snap(60), seg(61)], 2).sort()).to.deep.equal([
      seg(21),
      snap(20),
    ]);
  });

  it('with one generation (compact) keeps only the newest snapshot and the log after it', () => {
    expect(redundantFiles([seg(1), snap(20), seg(21), snap(40), seg(41)], 1).sort()).to.deep.equal([
      seg(1),
      seg(21),
      snap(20),
    ]);
  });

  it('keeps segments a replication peer has not acknowledged, and never the last segment', () => {
    expect(redundantFiles([seg(1), snap(20), seg(21), snap(40), seg(41)], 2, 5)).to.deep.equal([]);
    expect(redundantFiles([seg(1), snap(20), seg(21), snap(40), seg(41)], 1, 30).sort()).to.deep.equal([
      seg(1),
      snap(20),
    ]);
    expect(redundantFiles([seg(1), snap(40)], 1)).to.deep.equal([]);
  });
});
