/**
 * A call's budget: steps executed, wall time, working records and call
 * depth. Running out is a `CallLimitExceeded`, which TryCatch does not
 * catch (a runaway loop must end, not be retried by its own catch branch).
 *
 * The services that wait on the outside (the language-model port, the
 * bcrypt runner) are bounded by the same wall time (`boundedAi`,
 * `withinBudget`): when the time is up the work is aborted and the call
 * ends with its time-limit error, even if the service ignores the abort
 * (the call stops waiting for an embedder that cannot be cancelled).
 */
import type { Settings } from '../../engine/index.js';
import { DbError, type ErrorCode } from '../../errors.js';
import { YIELD_EVERY_STEPS } from '../limits.js';
import type { BcryptRunner, FunctionAi } from '../services.js';

export class CallLimitExceeded extends DbError {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode) {
    super(message);
    this.code = code;
  }
}

/**
 * Steps executed (nested calls, loop bodies and branches included), working records held by one step list, wall time.
 */
export interface CallBounds {
  readonly maxSteps: number;
  readonly maxRecords: number;
  readonly maxMs: number;
}

export function boundsFromSettings(settings: Settings): CallBounds {
  return {
    maxSteps: settings.function_max_steps,
    maxRecords: settings.function_max_records,
    maxMs: settings.function_timeout_ms,
  };
}

/** Shared by a call and every nested call it makes. */
export class CallBudget {
  private steps = 0;
  readonly deadline: number;

  constructor(
    readonly bounds: CallBounds,
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    this.deadline = monotonic() + bounds.maxMs;
  }

  get stepsExecuted(): number {
    return this.steps;
  }

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
      throw new CallLimitExceeded(
        `Function call exceeded ${this.bounds.maxRecords} working records`,
        'PAYLOAD_TOO_LARGE',
      );
    }
  }
}

/** The language-model port as a call's steps see it: every completion and embedding within the budget's time. */
export function boundedAi(port: FunctionAi, budget: CallBudget): FunctionAi {
  return {
    complete: (request) => withinBudget(budget, (signal) => port.complete(request, signal)),
    embed: (texts, model) => withinBudget(budget, (signal) => port.embed(texts, model, signal)),
  };
}

/**
 * Runs `work` bounded by the budget's remaining wall time: when it is up,
 * `work`'s signal aborts and the result is the call's time-limit error
 * (CallLimitExceeded, TIMEOUT), whatever `work` does with the abort.
 */
async function withinBudget<T>(budget: CallBudget, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  budget.checkTime();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        // Rejected before the abort, so the race ends with the time limit, not the port's reaction to the abort.
        try {
          budget.outOfTime();
        } catch (err) {
          reject(err);
        }
        controller.abort();
      },
      Math.max(1, budget.remainingMs()),
    );
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The bcrypt runner as a call's steps see it: a hash that would outlast the call is stopped. */
export function boundedBcrypt(runner: BcryptRunner, budget: CallBudget): BcryptRunner {
  return { raw: (job) => withinBudget(budget, (signal) => runner.raw(job, signal)) };
}
