import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Database, parseSearch, runSearch } from '../../../lib/engine/index.js';
import { BruteForceIndex } from '../../../lib/vector/index.js';
import { flipByte } from '../../helpers/data-files.js';
import { gaussian, mulberry32 } from '../../helpers/seeded-random.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';

const DIMS = 16;
const SCHEMA = {
  fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
};

function vectors(count: number, seed: number): number[][] {
  const g = gaussian(mulberry32(seed));
  return Array.from({ length: count }, () => Array.from({ length: DIMS }, g));
}

/** Polls a build's state every 5 ms for up to 20 s. */
const untilBuilt = (what: string, check: () => boolean) => until(what, check, 20_000, 5);

describe('engine/search persisted HNSW indexes', () => {
  let dir: string;
  let db: Database;
  let logged: string[];

  beforeEach(() => {
    dir = tempDir('eddydb-index-files-');
    logged = [];
  });
  afterEach(async () => {
    await db?.close();
    removeDir(dir);
  });

  const open = () =>
    Database.open({
      dataDir: dir,
      settings: { durability: 'none' },
      searchIndexes: { sliceMs: 0 },
      log: (m) => {
        logged.push(m);
      },
    });
  const status = () => db.search.status().find((s) => s.kind === 'vector' && s.field === 'embedding')!;
  const indexFiles = () =>
    readdirSync(dir)
      .filter((f) => f.startsWith('search-'))
      .sort();

  /**
   * 300 vectors, a snapshot with the index ready (some changes still pending), then 20 inserts and 10 deletes; returns
   * the live vectors.
   */
  async function seed(): Promise<Map<string, number[]>> {
    db = await open();
    await db.collections.create('vecs', SCHEMA);
    const data = vectors(300, 1);
    const ids = (
      await db.bulk.insertMany(
        'vecs',
        data.map((embedding) => ({ embedding })),
      )
    ).successful;
    const live = new Map(ids.map((id, i) => [id, data[i]!]));
    // Built and following commits (health shows it building while more than CATCH_UP_SHOWN changes wait).
    expect(db.search.entry('vecs', 'vector', 'embedding')!.state).to.equal('ready');
    // The commit left the vectors pending (applied in background slices): the graph is saved without most of them.
    expect(db.search.entry('vecs', 'vector', 'embedding')!.pending.size).to.be.greaterThan(0);
    await db.snapshot();
    const more = vectors(20, 2);
    const added = (
      await db.bulk.insertMany(
        'vecs',
        more.map((embedding) => ({ embedding })),
      )
    ).successful;
    added.forEach((id, i) => live.set(id, more[i]!));
    for (const id of ids.slice(0, 10)) {
      await db.records.delete('vecs', id);
      live.delete(id);
    }
    await db.close();
    return live;
  }

  async function expectSearchesMatch(live: Map<string, number[]>): Promise<void> {
    const exact = new BruteForceIndex({ dimensions: DIMS, metric: 'cosine' });
    for (const [id, v] of live) exact.add(id, v);
    for (const q of vectors(5, 3)) {
      const got = (await runSearch(db, 'vecs', parseSearch({ vector: q, vector_k: 10 }))).results.map((h) =>
        String(h.record.id),
      );
      expect(got).to.deep.equal(exact.search(q, 10).map((h) => h.id));
    }
  }

  it('writes the graph and a manifest beside the snapshot, private (0600)', async () => {
    await seed();
    const files = indexFiles();
    expect(
      files.some((f) => /^search-\d{16}\.manifest$/.test(f)),
      files.join(),
    ).to.equal(true);
    expect(
      files.some((f) => /^search-\d{16}-0\.hnsw$/.test(f)),
      files.join(),
    ).to.equal(true);
    for (const f of files) expect(statSync(path.join(dir, f)).mode & 0o777, f).to.equal(0o600);
  });

  it('loads the persisted graph after a restart and catches up on the changes after the snapshot, without a rebuild', async () => {
    const live = await seed();
    db = await open();
    expect(status().state, 'loading: stale, never building').to.equal('stale');
    const states = new Set<string>();
    await untilBuilt('the catch-up', () => {
      states.add(status().state);
      return status().state === 'ready';
    });
    expect([...states]).to.not.include('building');
    await untilBuilt('the pending changes', () => status().indexed === live.size);
    expect(status()).to.include({ indexed: live.size, total: live.size });
    expect(status().note).to.equal(undefined);
    await expectSearchesMatch(live);
    expect(logged.filter((m) => m.includes('search index'))).to.deep.equal([]);
  });

  it('reports a damaged graph file (log line and health note) and rebuilds it', async () => {
    const live = await seed();
    const graph = indexFiles().find((f) => f.endsWith('.hnsw'))!;
    // Inside the graph file, whatever share of the vectors the worker had applied at the snapshot.
    flipByte(path.join(dir, graph), Math.floor(statSync(path.join(dir, graph)).size / 2));
    db = await open();
    await untilBuilt('the damage to be reported', () => status().note !== undefined);
    expect(status().note).to.match(/checksum/);
    expect(
      logged.some((m) => m.includes('search index vecs.embedding') && m.includes('checksum')),
      logged.join('\n'),
    ).to.equal(true);
    await untilBuilt('the rebuild', () => status().state === 'ready');
    expect(status()).to.include({ indexed: live.size });
    await expectSearchesMatch(live);
  });

  it('reports a damaged manifest and rebuilds the declared indexes', async () => {
    const live = await seed();
    const manifest = indexFiles().find((f) => f.endsWith('.manifest'))!;
    flipByte(path.join(dir, manifest), 100);
    db = await open();
    expect(
      logged.some((m) => m.includes(manifest) && m.includes('damaged')),
      logged.join('\n'),
    ).to.equal(true);
    expect(status().state).to.equal('building');
    await untilBuilt('the rebuild', () => status().state === 'ready');
    await expectSearchesMatch(live);
  });

  it('rebuilds in the background after a restart the text index and the searched vector fields the manifest lists', async () => {
    db = await open();
    await db.collections.create('docs');
    const g = vectors(50, 9);
    await db.bulk.insertMany(
      'docs',
      g.map((v, i) => ({ title: `document number ${i}`, v })),
    );
    await runSearch(db, 'docs', parseSearch({ query: 'document' }));
    await runSearch(db, 'docs', parseSearch({ vector: g[0], vector_field: 'v' }));
    await untilBuilt('the first builds', () => db.search.status().every((s) => s.state === 'ready'));
    await db.snapshot();
    await db.close();
    db = await open();
    const kinds = () =>
      db.search
        .status()
        .map((s) => `${s.kind}:${s.field}:${s.state}`)
        .sort();
    expect(kinds()).to.deep.equal(['text:*:building', 'vector:v:stale']);
    await untilBuilt('the rebuilds', () => db.search.status().every((s) => s.state === 'ready'));
    expect(db.search.status().map((s) => s.indexed)).to.deep.equal([50, 50]);
    const hits = (await runSearch(db, 'docs', parseSearch({ query: 'number 7' }))).results;
    expect(String(hits[0]!.record.title)).to.match(/number 7$/);
  });

  it('renames a graph unchanged since the last snapshot instead of writing it again, and rewrites a changed one', async () => {
    const live = await seed();
    db = await open();
    await untilBuilt('the catch-up', () => status().state === 'ready' && status().indexed === live.size);
    const graphOf = () => indexFiles().find((f) => f.endsWith('.hnsw'))!;
    const inode = () => statSync(path.join(dir, graphOf())).ino;
    const [before, inodeBefore] = [graphOf(), inode()];
    await db.records.update('vecs', [...live.keys()][0]!, { note: 'no vector change, but a commit' });
    // The update is a change of the collection: the graph is written again.
    await db.snapshot();
    expect(graphOf()).to.not.equal(before);
    expect(inode()).to.not.equal(inodeBefore);
    const [second, inodeSecond] = [graphOf(), inode()];
    await db.collections.create('other');
    await db.records.insert('other', { x: 1 });
    await db.snapshot();
    expect(graphOf()).to.not.equal(second);
    expect(inode(), 'renamed, not rewritten').to.equal(inodeSecond);
    await db.close();
    db = await open();
    await untilBuilt('the catch-up', () => status().state === 'ready' && status().indexed === live.size);
    expect(status().note).to.equal(undefined);
    await expectSearchesMatch(live);
  });
});
