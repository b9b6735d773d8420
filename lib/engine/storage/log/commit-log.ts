/**
 * What the single writer and the database need of a log: encode a group's
 * batches, append them (resolving once they are kept under the durability
 * mode), rotate segments at snapshots, flush, heal after a failure and close.
 *
 * Two implementations: LogWriter (log-writer.ts) appends to segment files in
 * the data directory; MemoryLog (memory-log.ts) keeps nothing, for a
 * memory-only database.
 */
import type { LoggedBatch } from '../../write/effects.js';
import type { CommitInfo } from '../../write/change-feed.js';
import type { StorageFault } from '../storage-fault.js';

/**
 * How appends resolve (log-writer.ts explains each mode). `replicated` is a
 * cluster's (lib/cluster): the local log fsyncs as in `always`, and the
 * cluster's log must also hold the group; without a cluster it is `always`.
 */
export type DurabilityMode = 'always' | 'batch' | 'none' | 'replicated';
export const DURABILITY_MODES: readonly DurabilityMode[] = ['always', 'batch', 'none', 'replicated'];

/** A group's batches and their changes, as the writer staged them (WriteQueue.describeWhenStaged). */
export interface StagedGroup {
  readonly batches: readonly LoggedBatch[];
  readonly infos: readonly CommitInfo[];
}

export interface CommitLog {
  /** The durability mode appends resolve under (a settings change sets it). */
  mode: DurabilityMode;
  /** Told once per failure, as soon as it happens. */
  onFailure: (fault: StorageFault) => void;
  /** Bytes appended to the current segment (the size-triggered snapshot reads it). */
  readonly bytesInSegment: number;
  /** The segment appended to. */
  readonly currentSegment: string;
  /** The frames of `batches`, ready for appendEncoded; throws (or rejects) on a batch that cannot be encoded. */
  encode(batches: readonly LoggedBatch[]): Buffer | Promise<Buffer>;
  /**
   * Appends encoded frames; appends resolve in call order, once kept under the mode. `group` is given when the
   * writer describes groups as it stages them (a cluster's log reads it). `handedOver`: the caller keeps no view of
   * `data`, so the log may write a later group into its memory once it no longer needs these frames.
   */
  appendEncoded(data: Buffer, group?: StagedGroup, handedOver?: boolean): Promise<void>;
  /** Starts a new segment whose first batch will carry `startSeq`. */
  openSegment(startSeq: number): Promise<void>;
  /** Makes what was written durable (batch and none modes). */
  flush(): Promise<void>;
  /** Makes a failed log usable again, or throws leaving it failed (run between groups). */
  heal(): Promise<void>;
  close(): Promise<void>;
}
