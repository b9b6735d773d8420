/**
 * The cluster's snapshot: the newest snapshot file the primary wrote, kept
 * as the object `latest` of the object store (its seq in the metadata). A
 * node that is new, or whose log is behind the stream's first message,
 * downloads it into its data directory as `snapshot-<seq>.snap` (the
 * format is the local one, FORMAT.md) and replays the stream after it.
 *
 * The stream is bounded: once a snapshot is stored, and when the stream
 * holds more than `maxBytes` or its first message is older than `maxAgeMs`,
 * the messages the snapshot covers are purged, so the snapshot is the floor
 * and never a message after it is lost.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { snapshotName } from '../engine/index.js';
import type { NatsLink } from './nats-link.js';

const OBJECT = 'latest';

export interface StreamBounds {
  /** Purge covered messages once the stream holds more than this (bytes). */
  readonly maxBytes: number;
  /** ...or once its first message is older than this (ms). */
  readonly maxAgeMs: number;
}

export class SnapshotStore {
  constructor(
    private readonly link: NatsLink,
    private readonly bounds: StreamBounds,
  ) {}

  /** The seq of the stored snapshot; undefined when none is stored. */
  async latestSeq(): Promise<number | undefined> {
    const info = await this.link.snapshots.info(OBJECT);
    const seq = Number(info?.metadata?.seq);
    return info && !info.deleted && Number.isSafeInteger(seq) ? seq : undefined;
  }

  /** Stores the snapshot file `file` (of seq `seq`) as the cluster's latest, unless a newer one is stored. */
  async upload(file: string, seq: number): Promise<boolean> {
    if (((await this.latestSeq()) ?? -1) >= seq) return false;
    const data = Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>;
    await this.link.snapshots.put(
      { name: OBJECT, description: `snapshot at seq ${seq}`, metadata: { seq: String(seq) } },
      data,
    );
    return true;
  }

  /** Downloads the stored snapshot into `dir`; returns its seq, or undefined when none is stored. */
  async download(dir: string): Promise<number | undefined> {
    const seq = await this.latestSeq();
    if (seq === undefined) return undefined;
    const result = await this.link.snapshots.get(OBJECT);
    if (!result) return undefined;
    const target = path.join(dir, snapshotName(seq));
    const tmp = `${target}.tmp`;
    try {
      await pipeline(
        Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>),
        createWriteStream(tmp, { mode: 0o600 }),
      );
      const failed = await result.error;
      if (failed) throw failed;
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return seq;
  }

  /** Purges what the stored snapshot covers when the stream is past its bounds; returns how many were purged. */
  async trim(): Promise<number> {
    const floor = await this.latestSeq();
    if (floor === undefined) return 0;
    const info = await this.link.jsm.streams.info(this.link.names.stream);
    const { bytes, first_seq: first, first_ts: firstTs } = info.state;
    const old = Date.now() - Date.parse(firstTs) > this.bounds.maxAgeMs;
    if (first > floor || (bytes <= this.bounds.maxBytes && !old)) return 0;
    const purged = await this.link.jsm.streams.purge(this.link.names.stream, { seq: floor + 1 });
    return purged.purged;
  }
}
