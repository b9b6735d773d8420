import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { HnswBatch, HnswIndex, HnswThread, type RemoteHnsw, type VectorHit } from '../../lib/vector/index.js';
import { randomVectors } from '../helpers/seeded-random.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const DIMS = 16;

describe('vector/hnsw-thread: HNSW graphs in a worker thread', () => {
  let thread: HnswThread;
  let dir: string;
  beforeEach(() => {
    thread = new HnswThread();
    dir = tempDir('eddydb-hnsw-thread-');
  });
  afterEach(async () => {
    await thread.close();
    removeDir(dir);
  });

  const data = randomVectors(600, DIMS, 31);
  const queries = randomVectors(10, DIMS, 32);
  // An ef above the vectors stored makes each search look at the whole graph: the worker coalesces a replacement it
  // holds with the insert before it, so its graph links differently, and only an exhaustive search answers the same.
  const options = { dimensions: DIMS, metric: 'cosine' as const, initialCapacity: 64, efSearch: 1000 };

  /** The same changes, in the same order, to a graph in the worker (in batches of 50) and to one on this thread. */
  async function both(): Promise<{ remote: RemoteHnsw; local: HnswIndex }> {
    const remote = thread.create(options);
    const local = new HnswIndex(options);
    const batch = new HnswBatch(DIMS);
    const changes: Array<() => void> = [];
    data.forEach((v, i) => changes.push(() => (batch.add(`r${i}`, v), local.add(`r${i}`, v))));
    // Replacements and removals after the inserts, some in the same batch as the insert.
    for (let i = 0; i < 60; i++)
      changes.push(() => (batch.add(`r${i}`, data[599 - i]!), local.add(`r${i}`, data[599 - i]!)));
    for (let i = 100; i < 160; i++) changes.push(() => (batch.remove(`r${i}`), local.remove(`r${i}`)));
    const posted: Array<Promise<void>> = [];
    changes.forEach((change, i) => {
      change();
      if (batch.length === 50 || i === changes.length - 1) posted.push(remote.apply(batch));
    });
    await Promise.all(posted);
    return { remote, local };
  }

  it('answers as a graph built on this thread from the same inserts, replacements and removals in batches', async () => {
    const { remote, local } = await both();
    expect(remote.size).to.equal(540);
    expect(new Set(await remote.ids())).to.deep.equal(new Set(local.ids()));
    for (const q of queries) expectSameHits(await remote.search(q, 10), local.search(q, 10));
    const allowed = [...local.ids()].filter((id) => Number(id.slice(1)) % 3 === 0);
    const set = new Set(allowed);
    for (const q of queries)
      expectSameHits(
        await remote.search(q, 5, allowed),
        local.search(q, 5, (id) => set.has(id)),
      );
  });

  /**
   * The same scores rank by rank and the same ids, except among the ties of the last score: the worker builds on
   * every core, and which of several equal vectors an exhaustive search keeps at the cut depends on the graph.
   */
  function expectSameHits(got: VectorHit[], want: VectorHit[]): void {
    expect(got.map((h) => h.score)).to.deep.equal(want.map((h) => h.score));
    const last = want.at(-1)?.score;
    expect(got.filter((h) => h.score !== last)).to.deep.equal(want.filter((h) => h.score !== last));
  }

  it('sees every batch posted before a search, applied or not', async () => {
    const remote = thread.create(options);
    const batch = new HnswBatch(DIMS);
    batch.add('first', data[0]!);
    const applied = [remote.apply(batch)];
    batch.add('second', data[1]!);
    applied.push(remote.apply(batch));
    expect(remote.inFlight).to.equal(2);
    expect((await remote.search(data[1]!, 1))[0]!.id).to.equal('second');
    await Promise.all(applied);
    expect(remote.inFlight).to.equal(0);
    expect(remote.size).to.equal(2);
  });

  it('saves a graph and loads it back in the worker, answering as before', async () => {
    const { remote } = await both();
    const file = path.join(dir, 'g.hnsw');
    const state = await remote.save(file);
    const loaded = await thread.load(file, state, options);
    expect(loaded.size).to.equal(540);
    for (const q of queries) expect(await loaded.search(q, 10)).to.deep.equal(await remote.search(q, 10));
  });

  it('holds the batches posted during a save and applies them after, out of the file', async () => {
    const { remote } = await both();
    const file = path.join(dir, 'g.hnsw');
    const saved = remote.save(file);
    const batch = new HnswBatch(DIMS);
    batch.add('late', data[5]!);
    const applied = remote.apply(batch);
    const state = await saved;
    await applied;
    expect((await remote.search(data[5]!, 1))[0]!.id).to.equal('late');
    const loaded = await thread.load(file, state, options);
    expect(await loaded.ids()).to.not.include('late');
  });

  it('applies the batches held during a save after it, and answers them once they are in the graph', async () => {
    const remote = thread.create(options);
    const first = new HnswBatch(DIMS);
    data.slice(0, 300).forEach((v, i) => first.add(`r${i}`, v));
    await remote.apply(first);
    const saved = remote.save(path.join(dir, 'g.hnsw'));
    const late = new HnswBatch(DIMS);
    data.slice(300).forEach((v, i) => late.add(`r${300 + i}`, v));
    const applied = remote.apply(late);
    await saved;
    await applied;
    expect(remote.size).to.equal(600);
    expect((await remote.search(data[450]!, 1))[0]!.id).to.equal('r450');
    expect((await remote.ids()).length).to.equal(600);
  });

  it('runs a save asked for during another after it, with what the first held in the file, answering searches meanwhile', async () => {
    const remote = thread.create(options);
    const first = new HnswBatch(DIMS);
    data.slice(0, 300).forEach((v, i) => first.add(`r${i}`, v));
    await remote.apply(first);
    const saves = [remote.save(path.join(dir, 'a.hnsw'))];
    const late = new HnswBatch(DIMS);
    data.slice(300).forEach((v, i) => late.add(`r${300 + i}`, v));
    const applied = remote.apply(late);
    saves.push(remote.save(path.join(dir, 'b.hnsw')));
    const answered: string[] = [];
    const searched = remote.search(data[450]!, 1).then((hits) => answered.push(`search ${hits[0]!.id}`));
    const [a, b] = await Promise.all(saves.map((save, i) => save.then((state) => (answered.push(`save ${i}`), state))));
    await Promise.all([applied, searched]);
    // The search is answered while the saves wait for the file and for the held batch (the first may end before it).
    expect(answered).to.have.members(['search r450', 'save 0', 'save 1']);
    expect(answered.at(-1)).to.equal('save 1');
    expect(a!.labels.length).to.equal(300);
    expect(b!.labels.length).to.equal(600);
    const loaded = await thread.load(path.join(dir, 'b.hnsw'), b!);
    expect(loaded.size).to.equal(600);
    expect((await loaded.search(data[450]!, 1))[0]!.id).to.equal('r450');
  });

  it('lists every id posted before, the ones still held after a save included', async () => {
    const remote = thread.create(options);
    const saved = remote.save(path.join(dir, 'g.hnsw'));
    const batch = new HnswBatch(DIMS);
    data.slice(0, 400).forEach((v, i) => batch.add(`r${i}`, v));
    const applied = remote.apply(batch);
    await saved;
    await applied;
    expect((await remote.ids()).length).to.equal(400);
  });

  it('fails every request once closed; a request the worker cannot answer fails alone', async () => {
    const remote = thread.create(options);
    await remote.search(data[0]!, 1);
    await thread.close();
    const err = await remote.search(data[0]!, 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.match(/closed/);

    const other = new HnswThread();
    const failures: Error[] = [];
    other.onFailure = (e) => void failures.push(e);
    const graph = other.create(options);
    await graph.search(data[0]!, 1);
    // A request the worker cannot answer fails alone; the worker goes on.
    const unknown = await other.request({ op: 'ids', key: 'missing' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((unknown as Error).message).to.match(/no HNSW index 'missing'/);
    expect(await graph.search(data[0]!, 1)).to.have.length(0);
    expect(failures).to.deep.equal([]);
    await other.close();
  });
});

describe('vector/hnsw-thread: closing a worker that is calibrating', () => {
  it('ends the worker between its tasks, so the process survives a close at any moment of a calibration', function () {
    this.timeout(120_000);
    const main = path.resolve('spec/helpers/hnsw-close-main.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', main, '8'], { encoding: 'utf8', timeout: 110_000 });
    expect(r.signal, r.stderr.slice(-2000)).to.equal(null);
    expect(r.status, r.stderr.slice(-2000)).to.equal(0);
    expect(r.stdout).to.contain('closed 8');
  });
});
