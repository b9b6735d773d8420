import { expect } from 'chai';
import path from 'node:path';
import { InvalidInput } from '../../lib/errors.js';
import { BruteForceIndex, HnswIndex } from '../../lib/vector/index.js';
import { randomVectors } from '../helpers/seeded-random.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

describe('vector/hnsw save and load', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-hnsw-save-');
  });
  afterEach(() => removeDir(dir));

  const data = randomVectors(500, 16, 21);
  const queries = randomVectors(10, 16, 22);

  function filled(): HnswIndex {
    const index = new HnswIndex({ dimensions: 16, metric: 'cosine', initialCapacity: 64 });
    data.forEach((v, i) => index.add(`r${i}`, v));
    for (let i = 0; i < 50; i++) index.remove(`r${i}`);
    return index;
  }

  it('loads a saved graph answering as the original, with its ids and slot accounting', async () => {
    const index = filled();
    const file = path.join(dir, 'g.hnsw');
    const state = await index.save(file);
    const loaded = await HnswIndex.load(file, state);
    expect(loaded.size()).to.equal(450);
    expect(loaded.stats()).to.deep.equal(index.stats());
    for (const q of queries) expect(loaded.search(q, 10)).to.deep.equal(index.search(q, 10));
    loaded.add('new', data[0]!);
    expect(loaded.search(data[0]!, 1)[0]!.id).to.equal('new');
  });

  it('restores every label of a graph larger than one slice of labels (8,192 per turn of the event loop)', async function () {
    this.timeout(60_000);
    const many = randomVectors(20_000, 4, 23);
    const index = new HnswIndex({
      dimensions: 4,
      metric: 'euclidean',
      m: 4,
      efConstruction: 8,
      initialCapacity: 20_000,
    });
    many.forEach((v, i) => index.add(`r${i}`, v));
    const file = path.join(dir, 'big.hnsw');
    const state = await index.save(file);
    const loaded = await HnswIndex.load(file, state);
    expect(loaded.size()).to.equal(20_000);
    for (const i of [0, 8191, 8192, 19_999]) expect(loaded.search(many[i]!, 1)[0]!.id).to.equal(`r${i}`);
  });

  it('holds changes made during a save, scoring them exactly in searches meanwhile, and drains them after', async () => {
    const index = filled();
    const saving = index.save(path.join(dir, 'g.hnsw'));
    const fresh = randomVectors(5, 16, 23);
    fresh.forEach((v, i) => index.add(`fresh${i}`, v));
    index.remove('r100');
    expect(index.has('fresh0')).to.equal(true);
    expect(index.has('r100')).to.equal(false);
    const exact = new BruteForceIndex({ dimensions: 16, metric: 'cosine' });
    data.forEach((v, i) => {
      if (i >= 50 && i !== 100) exact.add(`r${i}`, v);
    });
    fresh.forEach((v, i) => exact.add(`fresh${i}`, v));
    const during = index.search(fresh[2]!, 5).map((h) => h.id);
    expect(during[0]).to.equal('fresh2');
    expect(index.search(data[100]!, 10).map((h) => h.id)).to.not.include('r100');
    expect(index.drainHeld(Infinity), 'nothing is applied while the save runs').to.equal(6);
    const state = await saving;
    expect(state.labels.map(([id]) => id))
      .to.include('r100')
      .and.not.include('fresh0');
    // Applied a chunk at a time by whoever answers the searches; the answers stay exact meanwhile.
    expect(index.heldCount).to.equal(6);
    expect(index.drainHeld(4)).to.equal(2);
    expect(index.size()).to.equal(454);
    for (const q of queries)
      expect(index.search(q, 10).map((h) => h.id)).to.deep.equal(exact.search(q, 10).map((h) => h.id));
    expect(index.drainHeld(Infinity)).to.equal(0);
    expect(index.size()).to.equal(454);
    expect(index.has('r100')).to.equal(false);
    for (const q of queries)
      expect(index.search(q, 10).map((h) => h.id)).to.deep.equal(exact.search(q, 10).map((h) => h.id));
  });

  it('holds changes once asked, out of a save, searched exactly, and marks when they are applied', async () => {
    const index = filled();
    const before = index.heldMark;
    index.hold();
    ['late0', 'late1', 'late2'].forEach((id, i) => index.add(id, data[5 + i]!));
    const mark = index.heldMark;
    expect([mark - before, index.heldCount, index.applied(mark)]).to.deep.equal([3, 3, false]);
    // A change to an id already held takes its place and turn; a removal of a stored id is held after them.
    index.add('late1', data[8]!);
    expect([index.heldMark, index.heldCount]).to.deep.equal([mark, 3]);
    index.remove('r60');
    const removal = index.heldMark;
    expect(index.search(data[8]!, 1)[0]!.id).to.be.oneOf(['late1', 'r8']);
    expect(index.search(data[60]!, 10).map((hit) => hit.id)).to.not.include('r60');
    const state = await index.save(path.join(dir, 'b.hnsw'));
    const saved = new Map(state.labels);
    expect([saved.has('late0'), saved.has('r60'), index.heldCount]).to.deep.equal([false, true, 4]);
    expect(index.drainHeld(3)).to.equal(1);
    expect([index.applied(mark), index.applied(removal)]).to.deep.equal([true, false]);
    expect(index.drainHeld(Infinity)).to.equal(0);
    expect([index.applied(removal), index.size(), index.has('r60')]).to.deep.equal([true, 452, false]);
    const loaded = await HnswIndex.load(path.join(dir, 'b.hnsw'), state);
    expect(loaded.size()).to.equal(450);
  });

  it('holds a Float32Array row as it is, scores it exactly while held, and inserts it once applied', () => {
    const index = filled();
    const row = Float32Array.from(randomVectors(1, 16, 77)[0]!);
    index.hold();
    index.add('row', row);
    const [held] = index.search(Array.from(row), 1);
    expect(held!.id).to.equal('row');
    expect(held!.score).to.be.closeTo(1, 1e-12);
    expect(index.drainHeld(Infinity)).to.equal(0);
    expect([index.has('row'), index.search(Array.from(row), 1)[0]!.id]).to.deep.equal([true, 'row']);
    expect(() => index.add('bad', new Float32Array(16).fill(Infinity))).to.throw(InvalidInput, 'not a finite number');
    expect(() => index.add('huge', new Array<number>(16).fill(1e39))).to.throw(
      InvalidInput,
      "beyond a 32-bit float's range",
    );
    expect(() => index.add('short', new Float32Array(3))).to.throw(InvalidInput, 'dimensions');
  });

  it('answers exactly around held replacements, few or many, with a filter or without', () => {
    for (const replaced of [20, 300]) {
      const index = filled();
      const exact = new BruteForceIndex({ dimensions: 16, metric: 'cosine' });
      index.hold();
      const moved = randomVectors(replaced, 16, 50 + replaced);
      data.forEach((v, i) => {
        if (i < 50) return;
        const vector = i - 50 < replaced ? moved[i - 50]! : v;
        if (i - 50 < replaced) index.add(`r${i}`, vector);
        exact.add(`r${i}`, vector);
      });
      const even = (id: string) => Number(id.slice(1)) % 2 === 0;
      for (const q of [...queries, ...moved.slice(0, 5)]) {
        const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id);
        expect(ids(index.search(q, 10)), `${replaced} held`).to.deep.equal(ids(exact.search(q, 10)));
        expect(ids(index.search(q, 10, even))).to.deep.equal(ids(exact.search(q, 10, even)));
      }
    }
  });

  it('stops draining at the time given, after at least one change', async () => {
    const index = filled();
    const saving = index.save(path.join(dir, 'g.hnsw'));
    randomVectors(20, 16, 41).forEach((v, i) => index.add(`n${i}`, v));
    await saving;
    expect(index.drainHeld(Infinity, 0)).to.equal(19);
    expect(index.drainHeld(3)).to.equal(16);
  });

  it('refuses a file that does not match the saved state', async () => {
    const index = filled();
    const file = path.join(dir, 'g.hnsw');
    const state = await index.save(file);
    let error: unknown;
    try {
      await HnswIndex.load(file, { ...state, usedSlots: state.usedSlots + 1 });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/slots/);
  });
});
