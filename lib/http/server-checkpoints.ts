/**
 * Checkpoints of a whole server, for test fixtures: the database state
 * (lib/engine/write/checkpoints.ts, O(1) to take, restored by undoing the
 * changes since) plus what lives beside it and must go back with it.
 *
 * A restore waits for the requests in flight (or fails naming them) and for
 * schedule runs in progress, ends every change subscription (what it
 * watched is gone), rolls back open transactions, puts the state back, and
 * forgets rate-limit windows and failed logins, so a test after a restore
 * starts where the checkpoint was, whatever the test before it did.
 */
import { Conflict, InvalidInput } from '../errors.js';
import type { ChangeNotifier, Checkpoint, Checkpoints } from '../engine/index.js';
import type { Scheduler } from '../workflow/index.js';
import type { AuthFailureLimiter } from './auth/auth-failures.js';
import type { Dispatcher } from './routing/dispatch.js';

/** Something beside the database state that a checkpoint captures and a restore puts back (a test clock). */
export interface Restorable {
  save(): unknown;
  load(saved: unknown): void;
}

/** A captured server state; only the server that took it can restore it. */
export class ServerCheckpoint {
  constructor(
    readonly owner: ServerCheckpoints,
    readonly engine: Checkpoint,
    readonly saved: ReadonlyMap<Restorable, unknown>,
  ) {}
}

export interface CheckpointParts {
  readonly db: { readonly checkpoints: Checkpoints };
  readonly dispatcher: Dispatcher;
  readonly notifier: ChangeNotifier;
  readonly scheduler: Scheduler;
  readonly authFailures: AuthFailureLimiter;
}

export class ServerCheckpoints {
  private readonly restorables = new Set<Restorable>();
  private restoring: Promise<void> | undefined;

  constructor(private readonly parts: CheckpointParts) {}

  /** Adds something a checkpoint captures beside the database (the id sequence, a test clock). */
  include(part: Restorable): void {
    this.restorables.add(part);
  }

  /** Captures the committed state: every acknowledged write is in it. O(1) in the number of records. */
  take(): ServerCheckpoint {
    const saved = new Map<Restorable, unknown>();
    for (const part of this.restorables) saved.set(part, part.save());
    return new ServerCheckpoint(this, this.parts.db.checkpoints.take(), saved);
  }

  /**
   * Puts the server back as it was at `checkpoint`. Waits up to `timeoutMs`
   * for the requests in flight, but for `ownRequests` of them (the request
   * asking for the restore, when one does); one restore at a time.
   */
  async restore(checkpoint: ServerCheckpoint, timeoutMs = 5000, ownRequests = 0): Promise<void> {
    if (!(checkpoint instanceof ServerCheckpoint) || checkpoint.owner !== this)
      throw new InvalidInput('This checkpoint was taken on another server: restore it on the server that took it');
    if (!checkpoint.engine.valid)
      throw new Conflict(
        'This checkpoint was released, or discarded when an older checkpoint was restored: take a new one after ' +
          'that restore',
      );
    while (this.restoring) await this.restoring.catch(() => undefined);
    const run = this.run(checkpoint, timeoutMs, ownRequests);
    this.restoring = run;
    try {
      await run;
    } finally {
      this.restoring = undefined;
    }
  }

  /** Lets a checkpoint go (the journal forgets what only it needed). */
  release(checkpoint: ServerCheckpoint): void {
    if (checkpoint.owner === this) this.parts.db.checkpoints.release(checkpoint.engine);
  }

  private async run(checkpoint: ServerCheckpoint, timeoutMs: number, ownRequests: number): Promise<void> {
    const { db, dispatcher, notifier, scheduler, authFailures } = this.parts;
    await dispatcher.inFlight.idle(timeoutMs, 'restoring a checkpoint', ownRequests);
    await scheduler.idle();
    notifier.endAll();
    await db.checkpoints.restore(checkpoint.engine);
    for (const [part, saved] of checkpoint.saved) part.load(saved);
    dispatcher.clearRateWindows();
    authFailures.clear();
  }
}
