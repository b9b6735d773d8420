/**
 * The language-model port as a call's steps see it (and `withinBudget`,
 * which bounds the bcrypt runner the same way): every completion and
 * embedding is bounded by the call's remaining wall time. When the time is
 * up the upstream request is aborted and the call ends with its time-limit
 * error (which TryCatch does not swallow), even if the port ignores the
 * abort (an embedder that cannot be cancelled is simply no longer waited for).
 */
import type { FunctionAi } from '../services.js';
import type { CallBudget } from './call-limits.js';

export function boundedAi(port: FunctionAi, budget: CallBudget): FunctionAi {
  return {
    complete: (req) => withinBudget(budget, (signal) => port.complete(req, signal)),
    embed: (texts, model) => withinBudget(budget, (signal) => port.embed(texts, model, signal)),
  };
}

/**
 * Runs `run` bounded by the budget's remaining wall time: when it is up,
 * `run`'s signal aborts and the result is the call's time-limit error
 * (CallLimitExceeded, TIMEOUT), whatever `run` does with the abort.
 */
export async function withinBudget<T>(budget: CallBudget, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  budget.checkTime();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected before the abort, so the race ends with the time limit, not the port's reaction to the abort.
      try { budget.outOfTime(); } catch (err) { reject(err); }
      controller.abort();
    }, Math.max(1, budget.remainingMs()));
  });
  try {
    return await Promise.race([run(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
