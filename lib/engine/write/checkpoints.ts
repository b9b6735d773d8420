/**
 * Checkpoints of the whole database state, for test fixtures: `take` is
 * O(1) (a position in the state journal), `restore` costs the changes made
 * since, whatever the number of records. The journal runs only while a
 * checkpoint is held, so a database that never takes one pays nothing.
 *
 * A restore runs in the writer between groups: no write is half applied,
 * open transactions are rolled back (their staged writes were made against
 * a state that is gone), and commit listeners hear what changed.
 */
import { Conflict, InvalidInput } from '../../errors.js';
import type { CommitInfo } from './change-feed.js';
import type { LoggedBatch } from './effects.js';
import { StateJournal } from './journal.js';
import type { DbState } from './state.js';
import type { WriteQueue } from './write-queue.js';

/** A captured state; only the database that took it can restore it. */
export class Checkpoint {
  /** False once a restore to an older checkpoint has discarded the state this one captured, or once released. */
  valid = true;
  constructor(
    readonly owner: Checkpoints,
    readonly position: number,
    /** The state's seq when it was taken (for messages and specs). */
    readonly seq: number,
  ) {}
}

export interface CheckpointHooks {
  /** Before the state is put back: ends what a restore invalidates (open transactions). */
  beforeRestore?(): void;
  /** After the state is put back, before anyone sees it: makes it durable when the database keeps files. */
  afterRestore?(): Promise<void>;
}

export class Checkpoints {
  private journal: StateJournal | undefined;
  /** Held checkpoints, oldest first. */
  private held: Checkpoint[] = [];

  constructor(
    private readonly state: DbState,
    private readonly queue: WriteQueue,
    private readonly hooks: CheckpointHooks = {},
  ) {}

  /** Changes the journal holds (0 while no checkpoint is held). */
  get journalSize(): number {
    return this.journal?.size ?? 0;
  }

  /**
   * Captures the committed state: every acknowledged write is in it, and a
   * write still in flight is not.
   */
  take(): Checkpoint {
    if (!this.journal) this.queue.journal = this.journal = new StateJournal();
    const checkpoint = new Checkpoint(this, this.journal.position, this.state.seq);
    this.held.push(checkpoint);
    return checkpoint;
  }

  /** Puts the state back as it was when `checkpoint` was taken. It stays held (restore it again later). */
  restore(checkpoint: Checkpoint): Promise<void> {
    this.check(checkpoint);
    return this.queue.changeOutsideLog(async () => {
      this.check(checkpoint);
      this.hooks.beforeRestore?.();
      const seq = this.state.seq + 1;
      const restored = this.journal!.undoTo(this.state, checkpoint.position, seq);
      // Checkpoints taken after this one captured states that no longer lead here.
      for (const later of this.held) if (later.position > checkpoint.position) later.valid = false;
      this.held = this.held.filter((held) => held.valid);
      await this.hooks.afterRestore?.();
      const batch: LoggedBatch = { seq, effects: restored.effects };
      const info: CommitInfo = { seq, changes: restored.changes, schemaChanged: restored.schemaChanged };
      return { batch, info, result: undefined };
    });
  }

  /** Lets a checkpoint go: the journal forgets what only it needed. Releasing twice does nothing. */
  release(checkpoint: Checkpoint): void {
    if (checkpoint.owner !== this || !checkpoint.valid) return;
    checkpoint.valid = false;
    this.held = this.held.filter((held) => held !== checkpoint);
    const oldest = this.held[0];
    if (oldest) this.journal!.forgetBefore(oldest.position);
    else this.queue.journal = this.journal = undefined;
  }

  private check(checkpoint: Checkpoint): void {
    if (!(checkpoint instanceof Checkpoint) || checkpoint.owner !== this)
      throw new InvalidInput('This checkpoint belongs to another database: restore it on the server that took it');
    if (!checkpoint.valid)
      throw new Conflict(
        `This checkpoint (taken at seq ${checkpoint.seq}) was released, or discarded when an older checkpoint ` +
          `was restored: take a new checkpoint after that restore`,
      );
  }
}
