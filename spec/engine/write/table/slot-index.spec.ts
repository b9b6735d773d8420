/**
 * SlotIndex (slot-index.ts): the open-addressing table that finds a
 * record's slot by its id, checked against a Map under seeded random adds
 * and deletes (probe runs that wrap around, deletes that shift runs back,
 * growth), and refiled after a compaction moves the records.
 */
import { expect } from 'chai';
import { idHash, SlotIndex } from '../../../../lib/engine/write/table/slot-index.js';
import { mulberry32 } from '../../../helpers/seeded-random.js';

/** An index over `ids` (the id in each slot, slot 0 unused), as a RecordTable keeps it. */
function indexOver(ids: Array<string | undefined>): SlotIndex {
  return new SlotIndex((slot) => ids[slot]!);
}

describe('engine/write/slot-index', () => {
  it('finds what a Map finds under seeded random adds and deletes', () => {
    const u = mulberry32(7);
    const ids: Array<string | undefined> = [undefined];
    const index = indexOver(ids);
    const model = new Map<string, number>();
    for (let step = 0; step < 60_000; step++) {
      const id = `id-${Math.floor(u() * 5_000)}`;
      if (model.has(id)) {
        if (u() < 0.6) {
          const slot = model.get(id)!;
          expect(index.delete(id)).to.equal(slot);
          ids[slot] = undefined;
          model.delete(id);
        }
      } else {
        ids.push(id);
        index.add(id, ids.length - 1);
        model.set(id, ids.length - 1);
      }
      if (step % 4_999 === 0) {
        expect(index.size).to.equal(model.size);
        for (let k = 0; k < 5_000; k++) expect(index.get(`id-${k}`), `id-${k}`).to.equal(model.get(`id-${k}`));
      }
    }
    expect(index.delete('never-added')).to.equal(undefined);
  });

  it('keeps ids of the same position apart, across the end of the table', () => {
    // Ids whose hashes share their low bits probe the same run; a run that starts near the end wraps to the start.
    const candidates = Array.from({ length: 40_000 }, (_, i) => `c${i}`);
    const clash = candidates.filter((id) => (idHash(id) & 15) === 15).slice(0, 6);
    expect(clash).to.have.length(6);
    const ids: Array<string | undefined> = [undefined, ...clash];
    const index = indexOver(ids);
    clash.forEach((id, i) => index.add(id, i + 1));
    clash.forEach((id, i) => expect(index.get(id)).to.equal(i + 1));
    expect(index.delete(clash[1]!)).to.equal(2);
    ids[2] = undefined;
    for (const [i, id] of clash.entries()) expect(index.get(id)).to.equal(i === 1 ? undefined : i + 1);
  });

  it('refiles the ids at their new slots after a compaction', () => {
    const ids: Array<string | undefined> = [undefined];
    const index = indexOver(ids);
    for (let i = 0; i < 1_000; i++) {
      ids.push(`r${i}`);
      index.add(`r${i}`, i + 1);
    }
    for (let i = 0; i < 1_000; i += 3) {
      index.delete(`r${i}`);
      ids[i + 1] = undefined;
    }
    const kept = ids.filter((id): id is string => id !== undefined);
    const from = new Int32Array(kept.length + 1);
    let to = 0;
    for (let slot = 1; slot < ids.length; slot++) if (ids[slot] !== undefined) from[++to] = slot;
    ids.length = 0;
    ids.push(undefined, ...kept);
    index.moved(from, kept.length);
    expect(index.size).to.equal(kept.length);
    kept.forEach((id, i) => expect(index.get(id)).to.equal(i + 1));
    expect(index.get('r0')).to.equal(undefined);
  });
});
