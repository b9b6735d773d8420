/**
 * Snapshots: the whole state at one seq, written while writes continue.
 *
 * The writer marks every collection with an undo map, so records changed
 * after the snapshot started are written with their pre-snapshot entry
 * (see CollectionState.undo); no map is copied. Frames are written in
 * chunks with event-loop turns between them, which bounds the write stall.
 *
 * File: header 'EDDYSNAP' v1, then frames: meta, config, keys, per
 * collection a `coll` frame and `recs` chunks, `trash` chunks, and a final
 * `end` frame. A snapshot without its `end` frame is invalid.
 */
import path from 'node:path';
import { checkHeader, encodeFrame, encodeHeader, HEADER_SIZE, readFrame } from './frame.js';
import { decodePayload, encodePayload } from './codec.js';
import type { StorageFs } from './fs.js';
import { CollectionState, DbState, type ApiKeyRecord, type CollectionMeta, type KvEntry, type RecordEntry } from "../state.js";
import type { Fields } from '../values/index.js';

export const SNAP_MAGIC = 'EDDYSNAP';
export const SNAP_VERSION = 1;
const CHUNK = 2000;

export function snapshotName(seq: number): string {
  return `snapshot-${String(seq).padStart(16, '0')}.snap`;
}

type Row = [id: string, fields: Fields, version: number, expiresAt: number | null, slidingMs: number | null, deletedAt?: number];

type SnapFrame =
  | { k: 'meta'; seq: number; created_at: number }
  | { k: 'config'; v: Record<string, unknown> }
  | { k: 'keys'; v: unknown[] }
  | { k: 'ripple'; seen: Array<[string, number]> }
  | { k: 'kv'; rows: Array<[string, KvEntry]> }
  | { k: 'kvLinks'; rows: Array<[string, string[]]> }
  | { k: 'coll'; meta: CollectionMeta; membership: number }
  | { k: 'recs'; c: string; rows: Row[] }
  | { k: 'trash'; c: string; rows: Row[] }
  | { k: 'end'; frames: number };

function row(id: string, e: RecordEntry, deletedAt?: number): Row {
  const r: Row = [id, e.fields, e.version, e.expiresAt ?? null, e.slidingMs ?? null];
  if (deletedAt !== undefined) r.push(deletedAt);
  return r;
}

function toEntry(r: Row, ord?: number): RecordEntry {
  const e: { fields: Fields; version: number; expiresAt?: number; slidingMs?: number; ord?: number } = { fields: r[1], version: r[2] };
  if (ord !== undefined) e.ord = ord;
  if (r[3] !== null) e.expiresAt = r[3];
  if (r[4] !== null) e.slidingMs = r[4];
  return e;
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Writes a snapshot of `state` as of now to `dir`, returning its file name
 * and seq. Durable on return (fsync, rename, directory fsync).
 */
export async function writeSnapshot(fs: StorageFs, dir: string, state: DbState, now: number): Promise<{ name: string; seq: number; bytes: number }> {
  const seq = state.seq;
  const colls = [...state.collections.values()].map((c) => ({ c, meta: c.meta, membership: c.membershipVersion }));
  for (const { c } of colls) c.undo = new Map();
  const trash = [...state.trash].map(([c, m]) => [c, [...m]] as const);
  const name = snapshotName(seq);
  const tmp = path.join(dir, name + '.tmp');
  const file = await fs.openWrite(tmp);
  let frames = 0, bytes = 0, complete = false;
  const put = async (f: SnapFrame) => {
    const buf = encodeFrame(encodePayload(f));
    frames += 1; bytes += buf.length;
    await file.write(buf);
  };
  try {
    await file.write(encodeHeader(SNAP_MAGIC, SNAP_VERSION));
    await put({ k: 'meta', seq, created_at: now });
    await put({ k: 'config', v: { ...state.config } });
    await put({ k: 'keys', v: [...state.keys.values()] });
    await put({ k: 'ripple', seen: [...state.rippleSeen] });
    const kv = [...state.kv];
    for (let i = 0; i < kv.length; i += CHUNK) await put({ k: 'kv', rows: kv.slice(i, i + CHUNK) });
    await put({ k: 'kvLinks', rows: [...state.kvLinks].map(([key, set]) => [key, [...set]]) });
    for (const { c, meta, membership } of colls) {
      await put({ k: 'coll', meta, membership });
      await writeRecords(c, put);
    }
    for (const [c, entries] of trash) {
      for (let i = 0; i < entries.length; i += CHUNK) {
        await put({ k: 'trash', c, rows: entries.slice(i, i + CHUNK).map(([id, t]) => row(id, t.entry, t.deletedAt)) });
      }
    }
    await put({ k: 'end', frames });
    await file.sync();
    complete = true;
  } finally {
    for (const { c } of colls) c.undo = undefined;
    // A failed snapshot (a full disk) leaves no partial file behind; the log still covers everything.
    if (!complete) await fs.unlink(tmp).catch(() => undefined);
    await file.close();
  }
  await fs.rename(tmp, path.join(dir, name));
  await fs.syncDir(dir);
  return { name, seq, bytes };
}

async function writeRecords(c: CollectionState, put: (f: SnapFrame) => Promise<void>): Promise<void> {
  const undo = c.undo!;
  let rows: Row[] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    const chunk = rows;
    rows = [];
    await put({ k: 'recs', c: c.meta.name, rows: chunk });
    await yieldTurn();
  };
  // Live iteration sees writes made while we yield; undo holds the pre-snapshot entries.
  for (const [id, live] of c.records) {
    const before = undo.has(id) ? undo.get(id)! : live;
    if (before) rows.push(row(id, before));
    if (rows.length >= CHUNK) await flush();
  }
  for (const [id, before] of undo) if (before && !c.records.has(id)) rows.push(row(id, before));
  await flush();
}

/** Loads a snapshot; throws a descriptive Error if it is invalid in any way. */
export async function loadSnapshot(fs: StorageFs, file: string): Promise<DbState> {
  const buf = await fs.readFile(file);
  if (checkHeader(buf, SNAP_MAGIC) !== SNAP_VERSION) throw new Error(`${file}: bad snapshot header`);
  const state = new DbState();
  let offset = HEADER_SIZE, frames = 0, sawEnd = false;
  while (!sawEnd) {
    const r = readFrame(buf, offset);
    if (r.kind !== 'frame') throw new Error(`${file}: ${r.kind === 'end' ? 'missing end frame' : r.reason} at byte ${offset}`);
    const f = decodePayload<SnapFrame>(r.payload);
    offset = r.next;
    switch (f.k) {
      case 'meta': state.seq = f.seq; break;
      case 'config': state.config = f.v; break;
      case 'keys': for (const k of f.v as ApiKeyRecord[]) state.keys.set(k.id, k); break;
      case 'ripple': for (const [node, seq] of f.seen) state.rippleSeen.set(node, seq); break;
      case 'kv': for (const [key, entry] of f.rows) state.kv.set(key, entry); break;
      case 'kvLinks': for (const [key, links] of f.rows) state.kvLinks.set(key, new Set(links)); break;
      case 'coll': {
        const coll = new CollectionState(f.meta);
        coll.membershipVersion = f.membership;
        state.collections.set(f.meta.name, coll);
        break;
      }
      case 'recs': {
        const coll = state.collections.get(f.c);
        if (!coll) throw new Error(`${file}: records for unknown collection ${f.c}`);
        for (const r2 of f.rows) coll.records.set(r2[0], toEntry(r2, ++coll.lastOrd));
        break;
      }
      case 'trash': {
        let t = state.trash.get(f.c);
        if (!t) state.trash.set(f.c, (t = new Map()));
        for (const r2 of f.rows) t.set(r2[0], { entry: toEntry(r2), deletedAt: r2[5] ?? 0 });
        break;
      }
      case 'end':
        if (f.frames !== frames) throw new Error(`${file}: frame count ${frames} does not match ${f.frames}`);
        sawEnd = true;
        break;
    }
    frames += 1;
  }
  return state;
}
