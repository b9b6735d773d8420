/**
 * A backup file read back (`eddydb verify FILE`, `eddydb restore`): its
 * manifest, then the snapshot it holds read strictly, as recovery reads a
 * snapshot (every checksum, the `end` frame and the frame count, the seq
 * against the manifest's), into the state a start would load. Any problem
 * is a Corruption naming the byte of the backup file. Restoring writes the
 * two files a data directory needs to start from it: `secrets` and the
 * snapshot (tmp, fsync, rename, directory fsync). The log starts empty
 * after the snapshot's seq.
 */
import path from 'node:path';
import { Corruption } from '../../../errors.js';
import { checkHeader, HEADER_SIZE, readFrame } from '../frame.js';
import { decodePayload } from '../codec.js';
import type { StorageFs } from '../fs.js';
import { readSnapshotBytes } from '../snapshot/snapshot-reader.js';
import { SNAP_MAGIC, snapshotName } from '../snapshot/snapshot.js';
import { writeSecrets } from '../../admin/secrets.js';
import type { DbState } from '../../write/state.js';
import { BACKUP_MAGIC, BACKUP_VERSION, type BackupManifest } from './backup.js';

/** What a backup file holds. */
export interface BackupContents {
  readonly manifest: BackupManifest;
  /** The state a start from the restored directory loads. */
  readonly state: DbState;
  /** Bytes of the whole file. */
  readonly bytes: number;
  /** Where the snapshot begins in the file. */
  readonly snapshotAt: number;
  /** Records per collection (expired ones not yet swept included), in the snapshot's order. */
  readonly collections: ReadonlyArray<{ readonly name: string; readonly records: number }>;
}

/** Reads and checks the backup in `buf`; `name` names it in errors. Throws Corruption on any problem. */
export async function readBackup(buf: Buffer, name: string): Promise<BackupContents> {
  if (checkHeader(buf, BACKUP_MAGIC) !== BACKUP_VERSION) {
    const what =
      checkHeader(buf, SNAP_MAGIC) !== undefined
        ? 'this is a snapshot file, not a backup; a snapshot belongs in a data directory'
        : `not an EddyDB backup (the header is not ${BACKUP_MAGIC} version ${BACKUP_VERSION})`;
    throw new Corruption(name, 0, what);
  }
  const first = readFrame(buf, HEADER_SIZE);
  if (first.kind === 'end') throw new Corruption(name, HEADER_SIZE, 'the backup ends after its header (incomplete)');
  if (first.kind !== 'frame') throw new Corruption(name, HEADER_SIZE, first.reason);
  const manifest = manifestOf(decodeOrNull(first.payload), name);
  const snapshotAt = first.next;
  try {
    const { state } = await readSnapshotBytes(buf.subarray(snapshotAt), name, manifest.seq);
    const collections = [...state.collections].map(([collection, c]) => ({
      name: collection,
      records: c.records.size,
    }));
    return { manifest, state, bytes: buf.length, snapshotAt, collections };
  } catch (err) {
    if (err instanceof Corruption) throw new Corruption(name, snapshotAt + err.offset, err.reason);
    throw err;
  }
}

/**
 * Writes the files a data directory needs to start from `contents` (read
 * from `buf` by readBackup) into `dir`, which the caller has made, locked
 * and found empty. Resolves with the snapshot's file name.
 */
export async function restoreBackup(
  fs: StorageFs,
  dir: string,
  buf: Buffer,
  contents: BackupContents,
): Promise<string> {
  const { secrets } = contents.manifest;
  await writeSecrets(fs, dir, {
    jwtKey: Buffer.from(secrets.jwt_key, 'base64'),
    idKey: Buffer.from(secrets.id_key, 'base64'),
  });
  const name = snapshotName(contents.manifest.seq);
  const tmp = path.join(dir, name + '.tmp');
  const file = await fs.openWrite(tmp);
  try {
    await file.write(buf.subarray(contents.snapshotAt));
    await file.sync();
  } finally {
    await file.close();
  }
  await fs.rename(tmp, path.join(dir, name));
  await fs.syncDir(dir);
  return name;
}

function decodeOrNull(payload: Buffer): unknown {
  try {
    return decodePayload<unknown>(payload);
  } catch {
    return null;
  }
}

/** The manifest frame checked member by member. */
function manifestOf(value: unknown, name: string): BackupManifest {
  const bad = (what: string) => new Corruption(name, HEADER_SIZE, `the manifest frame ${what}`);
  if (typeof value !== 'object' || value === null) throw bad('is not a map');
  const m = value as Record<string, unknown>;
  if (m.k !== 'backup') throw bad(`is of kind ${String(m.k)}, not backup`);
  if (!Number.isSafeInteger(m.seq) || (m.seq as number) < 0) throw bad('has no seq');
  if (typeof m.created_at !== 'number') throw bad('has no created_at');
  if (typeof m.version !== 'string' || typeof m.memory !== 'boolean') throw bad('has no version or memory');
  const secrets = m.secrets as Record<string, unknown> | undefined;
  const isKey = (v: unknown) => typeof v === 'string' && Buffer.from(v, 'base64').length === 32;
  if (!secrets || !isKey(secrets.jwt_key) || !isKey(secrets.id_key)) throw bad('has no secrets of 32 bytes each');
  return m as unknown as BackupManifest;
}
