/**
 * StagedRecords answers as a Map would: records put under made ids wait in
 * a tail list, moved into the map on the first lookup or other staging, and
 * the staging order, sizes, lookups and copies are those of a Map given the
 * same operations (compared over seeded random sequences).
 */
import { expect } from 'chai';
import { StagedRecords } from '../../../lib/engine/write/staged-records.js';
import type { RecordEntry } from '../../../lib/engine/write/state.js';
import type { RecordImage } from '../../../lib/engine/write/apply-effect.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const entry = (n: number): RecordEntry => ({ fields: { n }, version: n, expiresAt: undefined, slidingMs: undefined });
/** What a put stages under a made id: the image, and the version the view stamps on it. */
const image = (n: number): RecordImage => ({ fields: { n } });

describe('engine/write/staged-records', () => {
  it('keeps made-id records in staging order, after the entries before them', () => {
    const staged = new StagedRecords();
    staged.set('a', entry(1));
    staged.putNew('m1', image(2), 2);
    staged.putNew('m2', image(3), 3);
    expect(staged.size).to.equal(3);
    expect([...staged].map(([id]) => id)).to.deep.equal(['a', 'm1', 'm2']);
    staged.set('b', null);
    staged.putNew('m3', image(4), 4);
    expect([...staged].map(([id]) => id)).to.deep.equal(['a', 'm1', 'm2', 'b', 'm3']);
    expect(staged.get('m1')).to.deep.equal(entry(2));
    expect(staged.get('b')).to.equal(null);
    expect(staged.get('x')).to.equal(undefined);
  });

  it('sees a made-id record updated or removed later, as a transaction that inserts then updates does', () => {
    const staged = new StagedRecords();
    staged.putNew('m1', image(1), 1);
    staged.set('m1', entry(2));
    expect(staged.size).to.equal(1);
    expect(staged.get('m1')).to.deep.equal(entry(2));
    staged.set('m1', null);
    expect([...staged]).to.deep.equal([['m1', null]]);
  });

  it('walks every entry once, lookups during the walk included', () => {
    const staged = new StagedRecords();
    staged.set('a', entry(0));
    for (let i = 1; i <= 3; i++) staged.putNew(`m${i}`, image(i), i);
    const seen: string[] = [];
    for (const [id] of staged) {
      seen.push(id);
      staged.get('a');
    }
    expect(seen).to.deep.equal(['a', 'm1', 'm2', 'm3']);
  });

  it('visits what is staged during a walk, as a Map walk does', () => {
    const staged = new StagedRecords();
    const model = new Map<string, RecordEntry | null>();
    staged.putNew('m0', image(0), 0);
    model.set('m0', entry(0));
    const seen: string[] = [];
    const modelSeen: string[] = [];
    for (const [id] of staged) {
      seen.push(id);
      if (seen.length < 4) staged.putNew(`m${seen.length}`, image(seen.length), seen.length);
    }
    for (const [id] of model) {
      modelSeen.push(id);
      if (modelSeen.length < 4) model.set(`m${modelSeen.length}`, entry(modelSeen.length));
    }
    expect(seen).to.deep.equal(modelSeen);
    expect(seen).to.deep.equal(['m0', 'm1', 'm2', 'm3']);
  });

  it('answers as a Map given the same random operations, copies included', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = mulberry32(seed);
      let model = new Map<string, RecordEntry | null>();
      let staged = new StagedRecords();
      let made = 0;
      const known: string[] = [];
      for (let step = 0; step < 400; step++) {
        const r = rnd();
        const pick = () => known[Math.floor(rnd() * known.length)] ?? 'none';
        if (r < 0.45) {
          const id = `made-${made++}`;
          known.push(id);
          staged.putNew(id, image(step), step);
          model.set(id, entry(step));
        } else if (r < 0.65) {
          const id = rnd() < 0.7 ? pick() : `own-${step}`;
          if (!known.includes(id)) known.push(id);
          const value = rnd() < 0.3 ? null : entry(step);
          staged.set(id, value);
          model.set(id, value);
        } else if (r < 0.85) {
          const id = rnd() < 0.8 ? pick() : 'absent';
          expect(staged.get(id), `seed ${seed} step ${step} get ${id}`).to.deep.equal(model.get(id));
        } else if (r < 0.95) {
          expect([...staged], `seed ${seed} step ${step}`).to.deep.equal([...model]);
        } else {
          // A fork's copy: the copy and the original then go their own ways; follow the copy.
          const copy = new StagedRecords(staged);
          staged.putNew('only-in-the-original', image(-1), -1);
          staged = copy;
          model = new Map(model);
        }
        expect(staged.size).to.equal(model.size);
      }
      expect([...staged]).to.deep.equal([...model]);
    }
  });
});
