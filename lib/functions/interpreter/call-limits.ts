/**
 * A call's budget: steps executed, wall time, working records and call
 * depth. Running out is a `CallLimitExceeded`, which TryCatch does not
 * catch (a runaway loop must end, not be retried by its own catch branch).
 */
import { DbError, type ErrorCode } from '../../errors.js';
import type { Settings } from '../../engine/index.js';
import { YIELD_EVERY_STEPS } from '../limits.js';

export class CallLimitExceeded extends DbError {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode) {
    super(message);
    this.code = code;
  }
}

/** Steps executed (nested calls, loop bodies and branches included), working records held by one step list, wall time. */
export interface CallBounds {
  readonly maxSteps: number;
  readonly maxRecords: number;
  readonly maxMs: number;
}

export function boundsFromSettings(s: Settings): CallBounds {
  return { maxSteps: s.function_max_steps, maxRecords: s.function_max_records, maxMs: s.function_timeout_ms };
}

/** Shared by a call and every nested call it makes. */
export class CallBudget {
  private steps = 0;
  readonly deadline: number;

  constructor(readonly bounds: CallBounds, private readonly monotonic: () => number = () => performance.now()) {
    this.deadline = monotonic() + bounds.maxMs;
  }

  get stepsExecuted(): number { return this.steps; }

  /** Counts one step; throws when a bound is passed; true when the caller should yield to the event loop. */
  tick(): boolean {
    if (++this.steps > this.bounds.maxSteps) {
      throw new CallLimitExceeded(`Function call exceeded ${this.bounds.maxSteps} executed steps`, 'INVALID_INPUT');
    }
    this.checkTime();
    return this.steps % YIELD_EVERY_STEPS === 0;
  }

  checkTime(): void {
    if (this.monotonic() > this.deadline) this.outOfTime();
  }

  outOfTime(): never {
    throw new CallLimitExceeded(`Function call exceeded its time limit of ${this.bounds.maxMs} ms`, 'TIMEOUT');
  }

  /** Milliseconds left before the deadline. */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.monotonic());
  }

  checkRecords(count: number): void {
    if (count > this.bounds.maxRecords) {
      throw new CallLimitExceeded(`Function call exceeded ${this.bounds.maxRecords} working records`, 'PAYLOAD_TOO_LARGE');
    }
  }
}
