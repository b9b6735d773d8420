/**
 * Online backups in process: a backup streamed while writes go on restores
 * into an empty data directory at exactly its seq (records, updates,
 * deletes, trash, key-value, API keys and the secrets), from a data
 * directory or a memory-only database; a damaged file is refused naming
 * the byte; a reader that goes away, stalls or never reads lets go of the
 * collections' point-in-time readers.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Database, nodeFs, parseKeyRequest, readBackup, restoreBackup } from '../../../../lib/engine/index.js';
import { Corruption } from '../../../../lib/errors.js';
import { encodePayload } from '../../../../lib/engine/storage/codec.js';
import { backupStream, captureBackup } from '../../../../lib/engine/storage/backup/backup.js';
import { writeSnapshot } from '../../../../lib/engine/storage/snapshot/snapshot.js';
import { rejection } from '../../../helpers/rejection.js';
import { removeDir, tempDir } from '../../../helpers/temp-dir.js';

/** Everything a restore must bring back, as comparable text. */
function digest(db: Database): Record<string, unknown> {
  const s = db.state;
  const collections: Record<string, string[]> = {};
  for (const [name, c] of s.collections)
    collections[name] = [...c.records].map(([id, e]) => `${id} ${encodePayload(e.fields).toString('base64')}`).sort();
  return {
    seq: s.seq,
    collections,
    kv: [...s.kv].map(([k, e]) => `${k} ${encodePayload(e).toString('base64')}`).sort(),
    keys: [...s.keys.keys()].sort(),
    trash: [...s.trash].map(([c, m]) => `${c}: ${[...m.keys()].sort().join(',')}`).sort(),
  };
}

/** Reads a stream to the end, with an event-loop turn between chunks (a slow reader). */
async function drain(chunks: AsyncIterable<Buffer>, between?: () => Promise<void>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const chunk of chunks) {
    out.push(chunk);
    await between?.();
  }
  return Buffer.concat(out);
}

/** Open point-in-time readers on `collection` (the undo logs a capture holds). */
function readersOn(db: Database, collection: string): number {
  const coll = db.state.collections.get(collection) as unknown as { readers?: Set<unknown> };
  return coll.readers?.size ?? 0;
}

const text = (i: number) => `record ${i} `.padEnd(300, 'x');

async function seed(db: Database): Promise<string[]> {
  const ids = await db.bulk.insertMany(
    'users',
    Array.from({ length: 5000 }, (_, i) => ({ i, text: text(i) })),
  );
  const okIds = ids.successful;
  await db.records.delete('users', okIds[0]!);
  await db.kv.set('greeting', 'hello');
  await db.keys.create(parseKeyRequest({ name: 'reader', admin: false }));
  return okIds;
}

async function restoreInto(buf: Buffer, dir: string): Promise<Database> {
  const contents = await readBackup(buf, 'backup.eddyb');
  await restoreBackup(nodeFs, dir, buf, contents);
  return Database.open({ dataDir: dir });
}

describe('engine/storage online backup', function () {
  this.timeout(60_000);
  let dirs: string[] = [];
  const dir = () => {
    const d = tempDir('eddydb-backup-');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs) removeDir(d);
    dirs = [];
  });

  it('restores exactly the state at its seq while writes go on during the stream', async () => {
    const db = await Database.open({ dataDir: dir() });
    const restoredDir = dir();
    try {
      const ids = await seed(db);
      const stream = await db.backup({ version: 'test' });
      const before = digest(db);
      expect(stream.seq).to.equal(db.state.seq);
      let writes = 0;
      // Writes between the chunks: inserts, updates and deletes of records the capture holds, key-value changes.
      const buf = await drain(stream.chunks, async () => {
        writes++;
        await db.records.insert('users', { i: -writes, text: 'after' });
        await db.records.update('users', ids[writes]!, { text: 'changed after' });
        await db.records.delete('users', ids[writes + 100]!);
        await db.kv.set('greeting', `changed ${writes}`);
      });
      expect(writes, 'a backup of 1.5 MB comes in several chunks').to.be.greaterThan(2);
      expect(readersOn(db, 'users')).to.equal(0);
      const restored = await restoreInto(buf, restoredDir);
      try {
        expect(digest(restored)).to.deep.equal(before);
        expect(restored.secrets.jwtKey.equals(db.secrets.jwtKey)).to.equal(true);
        expect(restored.secrets.idKey.equals(db.secrets.idKey)).to.equal(true);
        await restored.records.insert('users', { i: 'new' });
        expect(restored.state.seq).to.equal(stream.seq + 1);
      } finally {
        await restored.close();
      }
      expect(readdirSync(restoredDir).filter((f) => f.endsWith('.snap'))).to.have.length(1);
    } finally {
      await db.close();
    }
  });

  it('backs up a memory-only database into a data directory', async () => {
    const db = await Database.open({ memory: true });
    try {
      await seed(db);
      const before = digest(db);
      const stream = await db.backup({ version: 'test' });
      const buf = await drain(stream.chunks);
      const contents = await readBackup(buf, 'memory.eddyb');
      expect(contents.manifest).to.include({ seq: before.seq, memory: true, version: 'test' });
      expect(contents.collections).to.deep.equal([{ name: 'users', records: 4999 }]);
      const restored = await restoreInto(buf, dir());
      try {
        expect(digest(restored)).to.deep.equal(before);
      } finally {
        await restored.close();
      }
    } finally {
      await db.close();
    }
  });

  it('refuses a truncated or damaged backup, or a snapshot, naming the byte', async () => {
    const db = await Database.open({ dataDir: dir() });
    try {
      await seed(db);
      const buf = await drain((await db.backup({ version: 'test' })).chunks);
      const truncated = await rejection(readBackup(buf.subarray(0, buf.length - 100), 'cut.eddyb'));
      expect(truncated).to.be.instanceOf(Corruption);
      expect((truncated as Corruption).message).to.match(/^corruption in cut\.eddyb at byte \d+: /);
      const flipped = Buffer.from(buf);
      flipped[Math.floor(buf.length / 2)]! ^= 0x40;
      const bad = (await rejection(readBackup(flipped, 'bad.eddyb'))) as Corruption;
      expect(bad.reason).to.equal('checksum mismatch');
      expect(bad.offset).to.be.within(buf.length / 2 - 3_000_000, buf.length / 2);
      const short = (await rejection(readBackup(buf.subarray(0, 12), 'short.eddyb'))) as Corruption;
      expect(short.message).to.include('ends after its header');
      const snapDir = dir();
      const written = await writeSnapshot(nodeFs, snapDir, db.state, db.now());
      const snap = await nodeFs.readFile(path.join(snapDir, written.name));
      const notBackup = (await rejection(readBackup(snap, written.name))) as Corruption;
      expect(notBackup.reason).to.include('a snapshot file, not a backup');
    } finally {
      await db.close();
    }
  });

  it('lets go of the collections when the reader goes away, stalls or never reads', async () => {
    const db = await Database.open({ memory: true });
    try {
      await seed(db);
      const gone = await db.backup({ version: 'test' });
      expect(readersOn(db, 'users')).to.equal(1);
      for await (const chunk of gone.chunks) {
        expect(chunk.length).to.be.greaterThan(0);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(readersOn(db, 'users'), 'after the reader went away').to.equal(0);

      const stalled = backupStream(captureBackup(db.state, db.secrets, db.now(), { version: 't', memory: true }), 50);
      const reader = stalled.chunks[Symbol.asyncIterator]();
      await reader.next();
      await new Promise((r) => setTimeout(r, 200));
      expect(readersOn(db, 'users'), 'after the reader stalled').to.equal(0);
      let failure: unknown;
      try {
        for (let next = await reader.next(); !next.done; next = await reader.next());
      } catch (err) {
        failure = err;
      }
      expect(String(failure)).to.include('took nothing for 50 ms');

      backupStream(captureBackup(db.state, db.secrets, db.now(), { version: 't', memory: true }), 50);
      expect(readersOn(db, 'users')).to.equal(1);
      await new Promise((r) => setTimeout(r, 100));
      expect(readersOn(db, 'users'), 'after a stream was never read').to.equal(0);
    } finally {
      await db.close();
    }
  });
});
