/**
 * Online backups: the whole database at one seq, as one stream of bytes,
 * taken while writes go on (GET /api/admin/backup), from a data directory
 * or a memory-only database alike.
 *
 *   backup   := header("EDDYBKUP", 1) frame(manifest) snapshot-file
 *   manifest := { k: "backup", seq, created_at, version, memory, secrets: { jwt_key, id_key } }
 *
 * `snapshot-file` is byte for byte the snapshot that snapshot.ts writes at
 * that seq (its own header, frames and `end` frame), so a restore copies it
 * into an empty data directory as `snapshot-<seq>.snap` beside `secrets`,
 * and a start recovers from it as from any snapshot (backup-file.ts). The
 * secrets travel with it: tokens signed before the backup stay valid and
 * new ids stay distinct from the old ones. A backup is as sensitive as the
 * data directory.
 *
 * The capture is the snapshot's: point-in-time readers opened between two
 * write groups, so the backup holds exactly the batches up to `seq`, with
 * no map copied and no writer held while the bytes go out.
 */
import { encodeFrame, encodeHeader } from '../frame.js';
import { encodePayload } from '../codec.js';
import { captureSnapshot, type ByteSink } from '../snapshot/snapshot.js';
import type { DbState } from '../../write/state.js';
import type { Secrets } from '../../admin/secrets.js';
import { ChunkQueue } from './chunk-queue.js';

export const BACKUP_MAGIC = 'EDDYBKUP';
export const BACKUP_VERSION = 1;
/** Unread bytes a backup stream holds before the capture waits for its reader (a few frames). */
const HIGH_WATER_BYTES = 1024 * 1024;
/** A reader that takes nothing for this long is taken for gone: the capture ends and lets go of the collections. */
const STALL_MS = 120_000;

/** The first frame of a backup. */
export interface BackupManifest {
  readonly k: 'backup';
  /** The seq of the last batch the backup holds. */
  readonly seq: number;
  /** When the capture was taken (ms since the epoch, the engine's clock). */
  readonly created_at: number;
  /** The version of the server that wrote it. */
  readonly version: string;
  /** Taken from a memory-only database. */
  readonly memory: boolean;
  /** The token signing key and the id key, base64. */
  readonly secrets: { readonly jwt_key: string; readonly id_key: string };
}

/** What the manifest says of the server a backup comes from. */
export interface BackupSource {
  readonly version: string;
  readonly memory: boolean;
}

/** A backup being taken: its seq, known at once, and its bytes as the reader pulls them. */
export interface BackupStream {
  readonly seq: number;
  readonly chunks: AsyncIterable<Buffer>;
}

/** A captured backup, its bytes not written yet. */
export interface BackupCapture {
  readonly seq: number;
  write(sink: ByteSink): Promise<void>;
  close(): void;
}

/** Captures a backup of `state` as of now. REQUIRES: called between write groups (see captureSnapshot). */
export function captureBackup(state: DbState, secrets: Secrets, now: number, source: BackupSource): BackupCapture {
  const snapshot = captureSnapshot(state, now);
  const manifest: BackupManifest = {
    k: 'backup',
    seq: snapshot.seq,
    created_at: now,
    version: source.version,
    memory: source.memory,
    secrets: { jwt_key: secrets.jwtKey.toString('base64'), id_key: secrets.idKey.toString('base64') },
  };
  return {
    seq: snapshot.seq,
    close: () => snapshot.close(),
    write: async (sink) => {
      try {
        await sink(encodeHeader(BACKUP_MAGIC, BACKUP_VERSION));
        await sink(encodeFrame(encodePayload(manifest)));
      } catch (err) {
        snapshot.close();
        throw err;
      }
      await snapshot.write(sink);
    },
  };
}

/**
 * The capture's bytes as a pull stream with back-pressure (chunk-queue.ts).
 * The capture is written once the stream is first read; one never read
 * within `stallMs` is closed, so a failed answer cannot leave the
 * collections keeping pre-images for ever.
 */
export function backupStream(capture: BackupCapture, stallMs = STALL_MS): BackupStream {
  let started = false;
  const unread = setTimeout(() => {
    if (!started) capture.close();
  }, stallMs);
  unread.unref();
  return {
    seq: capture.seq,
    chunks: {
      [Symbol.asyncIterator]: () => {
        started = true;
        clearTimeout(unread);
        const queue = new ChunkQueue(HIGH_WATER_BYTES, stallMs);
        capture
          .write((bytes) => queue.push(bytes))
          .then(
            () => queue.end(),
            (err: unknown) => queue.end(err),
          );
        return queue.read();
      },
    },
  };
}
