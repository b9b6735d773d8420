import { expect } from 'chai';
import { CATCH_UP_SHOWN, Database, PACED_PENDING, parseSearch, runSearch } from '../../../lib/engine/index.js';
import { BruteForceIndex } from '../../../lib/vector/index.js';
import { gaussian, mulberry32 } from '../../helpers/seeded-random.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';
import { countTurns, until } from '../../helpers/until.js';

const DIMS = 16;
const SCHEMA = {
  fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
};

function vectors(count: number, seed: number): number[][] {
  const g = gaussian(mulberry32(seed));
  return Array.from({ length: count }, () => Array.from({ length: DIMS }, g));
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Polls a build's state every 5 ms for up to 20 s. */
const untilBuilt = (what: string, check: () => boolean) => until(what, check, 20_000, 5);

describe('engine/search background index builds', () => {
  let dir: string;
  let db: Database;

  beforeEach(() => {
    dir = tempDir('eddydb-search-build-');
  });
  afterEach(async () => {
    await db?.close();
    removeDir(dir);
  });

  it('answers a text search whose index is still being built once the build is done, serving the event loop meanwhile', async () => {
    db = await open();
    await db.bulk.insertMany(
      'docs',
      Array.from({ length: 300 }, (_, i) => ({ title: `note ${i} ${i % 7 === 0 ? 'lighthouse' : 'harbor'}` })),
    );
    const turns = countTurns();
    const pending = runSearch(db, 'docs', parseSearch({ query: 'lighthouse', limit: 100 }));
    // One record per slice (sliceMs 0): the first search starts the build and waits for it.
    await turn();
    expect(db.search.status().find((st) => st.kind === 'text')).to.include({ state: 'building' });
    const hits = (await pending).results.map((h) => String(h.record.title));
    expect(turns(), 'event-loop turns while the search waited').to.be.above(100);
    expect(hits).to.have.length(43);
    expect(hits.every((t) => t.endsWith('lighthouse'))).to.equal(true);
    expect(db.search.status().find((st) => st.kind === 'text')).to.include({ state: 'ready', indexed: 300 });
  });

  it('keeps a declared text index up with a bulk load in the background; a search waits for a large backlog only', async () => {
    db = await open();
    await db.collections.create('docs', { fields: { title: { field_type: 'String', index: { type: 'text' } } } });
    await db.bulk.insertMany(
      'docs',
      Array.from({ length: 1000 }, (_, i) => ({ title: `note ${i} ${i % 5 === 0 ? 'lighthouse' : 'harbor'}` })),
    );
    const textStatus = () => db.search.status().find((st) => st.kind === 'text')!;
    // One change per slice (sliceMs 0): most of the load still waits, so searches would wait and health says so.
    expect(textStatus()).to.include({ state: 'building', total: 1000 });
    expect(textStatus().progress).to.be.below(1);
    const turns = countTurns();
    const hits = (await runSearch(db, 'docs', parseSearch({ query: 'lighthouse', limit: 1000 }))).results;
    expect(turns(), 'event-loop turns while the search waited').to.be.above(100);
    expect(hits).to.have.length(200);
    expect(textStatus()).to.include({ state: 'ready', progress: 1 });
    // A few changes are applied by the search itself, in the tick that answers.
    await db.bulk.insertMany('docs', [{ title: 'lighthouse keeper' }]);
    const searched = runSearch(db, 'docs', parseSearch({ query: 'keeper' }));
    expect(textStatus()).to.include({ state: 'ready' });
    expect((await searched).results.map((h) => h.record.title)).to.deep.equal(['lighthouse keeper']);
  });

  it('fails a text search still waiting for its index when the database closes, instead of leaving it pending', async () => {
    db = await open();
    await db.bulk.insertMany(
      'docs',
      Array.from({ length: 300 }, (_, i) => ({ title: `note ${i}` })),
    );
    const settled = runSearch(db, 'docs', parseSearch({ query: 'note' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    await turn();
    await db.close();
    const err = await settled;
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.match(/closing/);
  });

  /** Opens with one vector per slice, so a build of a few hundred vectors spans many event-loop turns. */
  const open = () => Database.open({ dataDir: dir, settings: { durability: 'none' }, searchIndexes: { sliceMs: 0 } });
  const vectorStatus = () => db.search.status().find((s) => s.kind === 'vector' && s.field === 'embedding');
  const search = async (q: number[], k = 10) =>
    (await runSearch(db, 'vecs', parseSearch({ vector: q, vector_k: k }))).results.map((h) => ({
      id: String(h.record.id),
      score: h.score,
    }));

  /** A collection of `data` written before a restart: after it, the index is built in the background. */
  async function restartedWith(data: number[][]): Promise<string[]> {
    db = await open();
    await db.collections.create('vecs', SCHEMA);
    const ids = (
      await db.bulk.insertMany(
        'vecs',
        data.map((embedding, n) => ({ n, embedding })),
      )
    ).successful;
    await db.close();
    db = await open();
    return ids;
  }

  function bruteForce(rows: Array<[string, number[]]>, q: number[], k = 10) {
    const exact = new BruteForceIndex({ dimensions: DIMS, metric: 'cosine' });
    for (const [id, v] of rows) exact.add(id, v);
    return exact.search(q, k);
  }

  it('answers during the build with exact-scan results identical to brute force, and health shows building then ready', async () => {
    const data = vectors(400, 1);
    const ids = await restartedWith(data);
    const rows = ids.map((id, i) => [id, data[i]!] as [string, number[]]);

    const building = vectorStatus()!;
    expect(building).to.include({
      collection: 'vecs',
      kind: 'vector',
      field: 'embedding',
      state: 'building',
      total: 400,
    });
    expect(building.progress).to.be.below(1);
    for (const q of vectors(5, 2)) expect(await search(q)).to.deep.equal(bruteForce(rows, q));
    expect(vectorStatus()!.state, 'still building after the searches').to.equal('building');

    await untilBuilt('the build', () => vectorStatus()!.state === 'ready');
    expect(vectorStatus()).to.include({ state: 'ready', indexed: 400, total: 400, progress: 1 });
    // From the graph now: approximate, but on 400 vectors it finds the same neighbours.
    const q = vectors(1, 3)[0]!;
    expect((await search(q)).map((h) => h.id)).to.deep.equal(bruteForce(rows, q).map((h) => h.id));
  });

  it('loses no write made during the build (inserts, replacements, deletes)', async () => {
    const data = vectors(300, 4);
    const ids = await restartedWith(data);
    const live = new Map(ids.map((id, i) => [id, data[i]!]));
    const fresh = vectors(60, 5);
    let f = 0,
      roundsWhileBuilding = 0;
    for (let round = 0; round < 20; round++) {
      if (vectorStatus()!.state === 'building') roundsWhileBuilding++;
      const [inserted] = (await db.bulk.insertMany('vecs', [{ embedding: fresh[f] }])).successful;
      live.set(inserted!, fresh[f++]!);
      const replaced = ids[round * 7]!;
      await db.records.update('vecs', replaced, { embedding: fresh[f] });
      live.set(replaced, fresh[f++]!);
      const deleted = ids[299 - round * 5]!;
      await db.records.delete('vecs', deleted);
      live.delete(deleted);
      await turn();
    }
    expect(roundsWhileBuilding, 'rounds of writes made while building').to.be.greaterThan(0);
    await untilBuilt('the build', () => vectorStatus()!.state === 'ready');
    const index = await db.search.settledVector('vecs', 'embedding');
    expect(index.size).to.equal(live.size);
    expect(new Set(await index.ids())).to.deep.equal(new Set(live.keys()));
    const rows = [...live];
    for (const q of vectors(5, 6))
      expect((await search(q)).map((h) => h.id)).to.deep.equal(bruteForce(rows, q).map((h) => h.id));
  });

  it('starts the build of a field first searched without a schema index, answering that search exactly', async () => {
    db = await open();
    await db.collections.create('plain');
    const data = vectors(200, 7);
    const ids = (
      await db.bulk.insertMany(
        'plain',
        data.map((v) => ({ v })),
      )
    ).successful;
    const q = vectors(1, 8)[0]!;
    const got = (await runSearch(db, 'plain', parseSearch({ vector: q, vector_field: 'v', vector_k: 5 }))).results.map(
      (h) => String(h.record.id),
    );
    expect(got).to.deep.equal(
      bruteForce(
        ids.map((id, i) => [id, data[i]!]),
        q,
        5,
      ).map((h) => h.id),
    );
    expect(db.search.status().find((s) => s.field === 'v')).to.include({ state: 'building' });
    await untilBuilt('the build', () => db.search.status().find((s) => s.field === 'v')!.state === 'ready');
  });

  it('applies committed changes to a ready index in the background, searches scoring the pending ones exactly meanwhile', async () => {
    db = await open();
    await db.collections.create('vecs', SCHEMA);
    const first = vectors(100, 9);
    const ids = (
      await db.bulk.insertMany(
        'vecs',
        first.map((embedding) => ({ embedding })),
      )
    ).successful;
    // The commit did not insert into the graph: the vectors wait, and searches see them anyway.
    expect(vectorStatus()).to.include({ state: 'ready', total: 100 });
    expect(vectorStatus()!.indexed).to.be.below(100);
    const live = new Map(ids.map((id, i) => [id, first[i]!]));
    const rows = () => [...live];
    for (const q of vectors(3, 10))
      expect((await search(q)).map((h) => h.id)).to.deep.equal(bruteForce(rows(), q).map((h) => h.id));
    await untilBuilt('the pending vectors', () => vectorStatus()!.indexed === 100);
    // A replacement and a delete wait too, and searches already see them.
    const moved = vectors(1, 11)[0]!;
    await db.records.update('vecs', ids[0]!, { embedding: moved });
    live.set(ids[0]!, moved);
    await db.records.delete('vecs', ids[1]!);
    live.delete(ids[1]!);
    expect((await search(moved, 1))[0]!.id).to.equal(ids[0]);
    expect((await search(first[1]!, 100)).map((h) => h.id)).to.not.include(ids[1]);
    await untilBuilt('the pending changes', () => vectorStatus()!.indexed === 99);
    for (const q of vectors(3, 12))
      expect((await search(q)).map((h) => h.id)).to.deep.equal(bruteForce(rows(), q).map((h) => h.id));
  });

  it('shows a ready index far behind its commits as building, its progress rising to 1 as the worker catches up', async () => {
    db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
    await db.collections.create('vecs', SCHEMA);
    // 64 dimensions: inserts slow enough (about 0.1 ms each) that the worker is far behind when the commit returns.
    const g = gaussian(mulberry32(13));
    const data = Array.from({ length: CATCH_UP_SHOWN + 3000 }, () => Array.from({ length: 64 }, g));
    await db.bulk.insertMany(
      'vecs',
      data.map((embedding) => ({ embedding })),
    );
    const first = vectorStatus()!;
    expect(first).to.include({ state: 'building', total: data.length });
    expect(first.progress).to.be.below(1);
    const seen: number[] = [first.progress];
    await untilBuilt('the catch-up', () => {
      const now = vectorStatus()!;
      seen.push(now.progress);
      return now.state === 'ready' && now.indexed === data.length;
    });
    expect(seen, 'progress never goes back').to.deep.equal([...seen].sort((a, b) => a - b));
    expect(vectorStatus()).to.include({ state: 'ready', progress: 1, indexed: data.length });
  });

  it('answers filtered searches on a graph as brute force does, selective filters by an exact scan', async () => {
    db = await open();
    await db.collections.create('vecs', SCHEMA);
    const data = vectors(600, 14);
    const ids = (
      await db.bulk.insertMany(
        'vecs',
        data.map((embedding, n) => ({ n, embedding })),
      )
    ).successful;
    await db.search.settledVector('vecs', 'embedding');
    const filtered = async (q: number[], filter: unknown) =>
      (await runSearch(db, 'vecs', parseSearch({ vector: q, vector_k: 5, filters: filter }))).results.map((h) =>
        String(h.record.id),
      );
    const cond = (operator: string, value: number) => ({ type: 'Condition', content: { field: 'n', operator, value } });
    for (const q of vectors(3, 15)) {
      // Half the records (through the graph) and four of them (an exact scan of those alone).
      for (const [filter, keep] of [
        [cond('Lt', 300), (n: number) => n < 300],
        [cond('Lt', 4), (n: number) => n < 4],
      ] as const) {
        const rows = ids.map((id, n) => [id, data[n]!] as [string, number[]]).filter((_, n) => keep(n));
        expect(await filtered(q, filter)).to.deep.equal(bruteForce(rows, q, 5).map((h) => h.id));
      }
    }
  });

  it('answers a write into a collection with a graph once at most PACED_PENDING of its changes wait', async () => {
    db = await open();
    await db.collections.create('vecs', SCHEMA);
    await db.collections.create('plain', { fields: { n: { field_type: 'Integer' } } });
    const data = vectors(3 * PACED_PENDING, 21);
    const graph = () => db.search.entries().find((e) => e.collection === 'vecs' && e.kind === 'vector')!;
    const session = db.session(undefined);
    await session.insertAll(
      'vecs',
      data.map((embedding, n) => ({ n, embedding })),
    );
    expect(graph().pending.size, 'changes waiting once the write is answered').to.be.at.most(PACED_PENDING);
    // A search right after scores at most that backlog exactly beside the graph.
    const forSearch = db.search.vectorFor('vecs', 'embedding', DIMS) as { uncovered: string[] };
    expect(forSearch.uncovered.length).to.be.at.most(PACED_PENDING);
    // A collection without a graph is not held, and neither is a write outside the sessions (the engine's own).
    await session.insertAll(
      'plain',
      Array.from({ length: 10 }, (_, n) => ({ n })),
    );
    expect(db.search.pacer('plain')).to.equal(undefined);
    await db.bulk.insertMany(
      'vecs',
      vectors(3 * PACED_PENDING, 22).map((embedding, n) => ({ n, embedding })),
    );
    expect(graph().pending.size).to.be.above(PACED_PENDING);
    const { size } = await db.search.settledVector('vecs', 'embedding');
    expect(size).to.equal(6 * PACED_PENDING);
  });
});
