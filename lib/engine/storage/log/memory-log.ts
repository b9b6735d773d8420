/**
 * The log of a memory-only database: it keeps nothing. Encoding returns an
 * empty buffer without encoding, an append resolves at once, and rotation,
 * flush, heal and close do nothing; `bytesInSegment` stays 0, so no
 * size-triggered snapshot ever runs.
 *
 * The write queue still groups operations, applies a group only after its
 * "append" has resolved and acknowledges in order, so writes are exactly as
 * atomic and ordered as with a log on disk; only durability is gone.
 */
import type { CommitLog, DurabilityMode } from './commit-log.js';
import type { StorageFault } from '../storage-fault.js';

const NOTHING = Buffer.alloc(0);

/** The segment name a memory log reports: there is no file. */
export const MEMORY_SEGMENT = 'memory';

export class MemoryLog implements CommitLog {
  readonly bytesInSegment = 0;
  readonly currentSegment = MEMORY_SEGMENT;
  /** Never called: a memory log does not fail. */
  onFailure: (fault: StorageFault) => void = () => undefined;

  /** Kept so a settings change reads back; it changes nothing here. */
  constructor(public mode: DurabilityMode) {}

  encode(): Buffer {
    return NOTHING;
  }
  appendEncoded(): Promise<void> {
    return Promise.resolve();
  }
  openSegment(): Promise<void> {
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  heal(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
