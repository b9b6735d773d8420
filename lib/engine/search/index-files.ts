/**
 * HNSW indexes persisted with snapshots, so a restart loads the graph and
 * catches up on the records changed after it instead of rebuilding the
 * whole graph (the slowest part of a start with vectors).
 *
 * After a snapshot at seq S is verified, each ready HNSW index is written
 * (hnswlib's own format, on the thread pool) to `search-<S>-<n>.hnsw`, then
 * the manifest `search-<S>.manifest` lists every search index with, for the
 * graphs, the file, its SHA-256 and size, the seq the graph reflects, the
 * ids whose change was still pending then, and the id of each label. Every file is private (0600), written under a .tmp
 * name,
 * fsynced and renamed; the manifest goes last and names the SHA-256 of its
 * own body, so a torn or damaged manifest is detected. Older index files are
 * then deleted.
 *
 * On start, a manifest is trusted only when it belongs to the snapshot
 * recovery used, its graph reflects a seq recovery reached, the index config
 * is unchanged and every byte matches its SHA-256 (hnswlib trusts what it
 * reads). A loaded graph re-applies only the records written after its seq
 * and its pending ids, and drops those gone. Anything else is logged, shown in health (`note`) and rebuilt in
 * the background. Text indexes are not persisted (their postings are JS maps;
 * writing them costs about as much as rebuilding them): the manifest only
 * lists them, so they are rebuilt in the background at start.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { HnswSavedState, RemoteHnsw } from '../../vector/index.js';
import type { EngineLog } from '../engine-log.js';
import type { StorageFs } from '../storage/fs.js';
import { IndexEntry, type IndexKind, type VectorConfig } from './index-entry.js';
import type { SearchIndexes } from './search-indexes.js';

const FORMAT = 1;
const FILE = /^search-(\d{16})(\.manifest|-\d+\.hnsw)(\.tmp)?$/;
const seqName = (seq: number) => String(seq).padStart(16, '0');
const manifestName = (seq: number) => `search-${seqName(seq)}.manifest`;

interface ManifestEntry {
  collection: string;
  kind: IndexKind;
  field: string;
  /** Present for a persisted graph. */
  graph?: {
    file: string;
    sha256: string;
    bytes: number;
    seq: number;
    pending: string[];
    config: VectorConfig;
    state: HnswSavedState;
  };
}

interface Manifest {
  format: number;
  snapshotSeq: number;
  entries: ManifestEntry[];
}

export interface IndexFilesContext {
  fs: StorageFs;
  dir: string;
  search: SearchIndexes;
  log: EngineLog;
}

/**
 * Writes the ready HNSW graphs and the manifest for snapshot `snapshotSeq`
 * (nothing when there is no search index); `currentSeq` is the committed seq now.
 */
export async function persistSearchIndexes(
  ctx: IndexFilesContext,
  snapshotSeq: number,
  currentSeq: () => number,
): Promise<void> {
  const { fs, dir } = ctx;
  const entries: ManifestEntry[] = [];
  let count = 0;
  for (const entry of ctx.search.entries()) {
    const item: ManifestEntry = { collection: entry.collection, kind: entry.kind, field: entry.field };
    entries.push(item);
    const index = entry.remote;
    if (!index || !entry.usable()) continue;
    const file = `search-${seqName(snapshotSeq)}-${count++}.hnsw`;
    const changes = entry.changes;
    item.graph =
      (await reuseGraph(ctx, entry, index, file)) ?? (await writeGraph(ctx, entry, index, file, currentSeq()));
    written.set(entry, { graph: item.graph, changes, index });
  }
  if (entries.length > 0) await writeManifest(fs, dir, { format: FORMAT, snapshotSeq, entries });
  for (const name of await fs.readdir(dir)) {
    const match = FILE.exec(name);
    if (match && Number(match[1]) !== snapshotSeq) await fs.unlink(path.join(dir, name)).catch(() => undefined);
  }
}

type Graph = NonNullable<ManifestEntry['graph']>;

/**
 * The graph each entry last wrote or loaded, and its change count then: unchanged graphs are renamed, not rewritten.
 */
const written = new WeakMap<IndexEntry, { graph: Graph; changes: number; index: RemoteHnsw }>();

/**
 * The graph file of an earlier snapshot renamed for this one, when no change
 * was recorded since it was written or loaded: loading it replays the same
 * catch-up (its seq and pending ids are kept), so it is still sound.
 */
async function reuseGraph(
  ctx: IndexFilesContext,
  entry: IndexEntry,
  index: RemoteHnsw,
  file: string,
): Promise<Graph | undefined> {
  const last = written.get(entry);
  if (!last || last.index !== index || last.changes !== entry.changes) return undefined;
  try {
    await ctx.fs.rename(path.join(ctx.dir, last.graph.file), path.join(ctx.dir, file));
  } catch {
    return undefined;
  }
  return { ...last.graph, file };
}

/** Writes `index` to `file` (tmp, 0600, fsync, rename). */
async function writeGraph(
  ctx: IndexFilesContext,
  entry: IndexEntry,
  index: RemoteHnsw,
  file: string,
  seq: number,
): Promise<Graph> {
  const { fs, dir } = ctx;
  const tmp = path.join(dir, file + '.tmp');
  // Every change up to `seq` is in the graph but the pending ones (the change feed runs synchronously on commit, and
  // the worker applies the batches posted before the save first).
  const pending = [...entry.pending.keys()];
  const state = await index.save(tmp);
  await fs.chmod(tmp, 0o600);
  await syncFile(fs, tmp);
  const { sha256, bytes } = await digest(fs, tmp);
  await fs.rename(tmp, path.join(dir, file));
  return { file, sha256, bytes, seq, pending, config: entry.config!, state };
}

async function writeManifest(fs: StorageFs, dir: string, manifest: Manifest): Promise<void> {
  const body = JSON.stringify(manifest);
  const tmp = path.join(dir, manifestName(manifest.snapshotSeq) + '.tmp');
  const out = await fs.openWrite(tmp);
  try {
    await out.write(Buffer.from(`${sha256Of(body)}\n${body}`));
    await out.sync();
  } finally {
    await out.close();
  }
  await fs.rename(tmp, path.join(dir, manifestName(manifest.snapshotSeq)));
  await fs.syncDir(dir);
}

/**
 * Registers the indexes the newest manifest lists: a sound graph is loaded
 * in the background and catches up; anything else is reported and rebuilt.
 * Returns once every index is registered; loading goes on after.
 */
export async function loadSearchIndexes(
  ctx: IndexFilesContext,
  baseSnapshotSeq: number,
  recoveredSeq: number,
): Promise<void> {
  const names = (await ctx.fs.readdir(ctx.dir)).filter((f) => FILE.test(f) && f.endsWith('.manifest')).sort();
  const newest = names.at(-1);
  if (!newest) return;
  let manifest: Manifest;
  try {
    manifest = parseManifest((await ctx.fs.readFile(path.join(ctx.dir, newest))).toString('utf8'));
  } catch (err) {
    ctx.log(
      `search indexes: ${newest} is damaged (${(err as Error).message}); indexes are rebuilt in the background`,
      'warn',
    );
    return;
  }
  for (const item of manifest.entries) {
    if (!ctx.search.collectionExists(item.collection)) continue;
    const rejected =
      item.kind === 'vector' ? whyRejected(ctx, item, manifest.snapshotSeq, baseSnapshotSeq, recoveredSeq) : undefined;
    if (item.kind === 'text' || !item.graph) {
      ctx.search.rebuild(item.collection, item.kind, item.field);
    } else if (rejected) {
      reject(ctx, item, rejected);
    } else {
      const entry = new IndexEntry(item.collection, 'vector', item.field, item.graph.config);
      ctx.search.registerLoading(entry);
      void loadGraph(ctx, item, entry);
    }
  }
}

function whyRejected(
  ctx: IndexFilesContext,
  item: ManifestEntry,
  manifestSeq: number,
  baseSeq: number,
  recoveredSeq: number,
): string | undefined {
  const generation = item.graph;
  if (!generation) return undefined;
  if (manifestSeq !== baseSeq) return `it belongs to snapshot seq ${manifestSeq}, recovery started from seq ${baseSeq}`;
  if (generation.seq > recoveredSeq)
    return `it reflects seq ${generation.seq}, recovery reached only seq ${recoveredSeq}`;
  const now = ctx.search.configOf(item.collection, item.field);
  if (JSON.stringify(now) !== JSON.stringify(generation.config)) return 'the index config changed';
  return undefined;
}

/** Checks the graph file's bytes, then loads it and starts the catch-up; on any failure reports and rebuilds. */
async function loadGraph(ctx: IndexFilesContext, item: ManifestEntry, entry: IndexEntry): Promise<void> {
  const generation = item.graph!;
  const file = path.join(ctx.dir, generation.file);
  try {
    const { sha256, bytes } = await digest(ctx.fs, file);
    if (bytes !== generation.bytes || sha256 !== generation.sha256)
      throw new Error(`${generation.file} does not match its checksum (damaged or replaced)`);
    const index = await ctx.search.graphs.load(file, generation.state);
    if (ctx.search.entry(entry.collection, 'vector', entry.field) !== entry) {
      index.drop();
      return;
    }
    entry.adoptGraph(
      index,
      generation.state.labels.map(([id]) => id),
    );
    written.set(entry, { graph: generation, changes: entry.changes, index });
  } catch (err) {
    if (ctx.search.entry(entry.collection, 'vector', entry.field) === entry) reject(ctx, item, (err as Error).message);
    return;
  }
  if (ctx.search.entry(entry.collection, 'vector', entry.field) === entry)
    ctx.search.adopt(entry, generation.seq, new Set(generation.pending));
}

function reject(ctx: IndexFilesContext, item: ManifestEntry, why: string): void {
  const note = `persisted index not used: ${why}; rebuilding`;
  ctx.log(`search index ${item.collection}.${item.field}: ${note}`, 'warn');
  ctx.search.rebuild(item.collection, item.kind, item.field, note);
}

function parseManifest(text: string): Manifest {
  const cut = text.indexOf('\n');
  const body = text.slice(cut + 1);
  if (cut !== 64 || sha256Of(body) !== text.slice(0, cut)) throw new Error('checksum mismatch');
  const manifest = JSON.parse(body) as Manifest;
  if (manifest.format !== FORMAT || !Array.isArray(manifest.entries))
    throw new Error(`unknown format ${String(manifest.format)}`);
  return manifest;
}

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** SHA-256 and size of a file, read in 1 MiB chunks (each a short task on the event loop). */
async function digest(fs: StorageFs, file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  let bytes = 0;
  for (;;) {
    const read = await fs.readAt(file, chunk, bytes);
    if (read <= 0) break;
    hash.update(chunk.subarray(0, read));
    bytes += read;
  }
  return { sha256: hash.digest('hex'), bytes };
}

async function syncFile(fs: StorageFs, file: string): Promise<void> {
  const handle = await fs.openAppend(file);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
