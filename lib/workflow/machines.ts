/**
 * The lifecycles of goals, goal steps and tasks, declared once: for each
 * state, the actions it allows and the states each action may lead to (an
 * action with two outcomes, like a task's `succeed`, lists both; the service
 * picks one by its rule and `transition` checks the pick is in the table).
 * Anything not in a table is refused with 409 naming the current state and
 * the actions it allows.
 */
import { InvalidTransition } from '../errors.js';

export type Machine = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

/**
 * A goal is created `pending` (its plan not yet approved; a create may say
 * `in_progress`). `approve` sets it in progress; its agent `complete`s it
 * with a summary for review (`pending_review`), from `pending` too, as the
 * real server accepts; the review's `approve` sends it back to work
 * (`in_progress`) or, when every one of its steps is completed, ends it
 * (`completed`); `reject` (with a reason) fails it at any open stage.
 */
export const GOAL_MACHINE: Machine = {
  pending: { approve: ['in_progress'], complete: ['pending_review'], reject: ['failed'] },
  in_progress: { complete: ['pending_review'], reject: ['failed'] },
  pending_review: { approve: ['in_progress', 'completed'], reject: ['failed'] },
  completed: {},
  failed: {},
};
export const GOAL_INITIAL_STATES: readonly string[] = ['pending', 'in_progress'];

/**
 * A step starts, then completes (with a result) or fails (with an error); a
 * step may also be reported completed or failed without a start, and a
 * failed step may be started again.
 */
export const STEP_MACHINE: Machine = {
  pending: { start: ['in_progress'], complete: ['completed'], fail: ['failed'] },
  in_progress: { complete: ['completed'], fail: ['failed'] },
  completed: {},
  failed: { start: ['in_progress'] },
};

/**
 * A task is active (waiting for its next run), running, paused, completed
 * (a one-off that succeeded) or failed (out of retries). A run ends in
 * `succeed` (active again, or completed when nothing is left to run) or
 * `fail` (active again to retry, or failed when `max_retries` is spent); a
 * worker may report a failure without having reported a start (the Go
 * client's example fails a task right after resuming it).
 */
export const TASK_MACHINE: Machine = {
  active: { start: ['running'], fail: ['active', 'failed'], pause: ['paused'] },
  running: { succeed: ['active', 'completed'], fail: ['active', 'failed'], pause: ['paused'] },
  paused: { resume: ['active'] },
  failed: { resume: ['active'] },
  completed: { resume: ['active'] },
};

/** A schedule fires while active; pause and resume take effect at once (resuming an active schedule is refused). */
export const SCHEDULE_MACHINE: Machine = {
  active: { pause: ['paused'] },
  paused: { resume: ['active'] },
};

/** The actions `state` allows, in table order. */
export function allowedActions(machine: Machine, state: string): string[] {
  return Object.keys(machine[state] ?? {});
}

/**
 * The state `action` leads to from `current`: `to` when given (it must be one
 * of the action's outcomes), else the action's only outcome. Throws
 * InvalidTransition (409) when the table has no such move.
 */
export function transition(
  machine: Machine,
  what: { resource: string; id: string },
  current: string,
  action: string,
  to?: string,
): string {
  const outcomes =
    Object.hasOwn(machine, current) && Object.hasOwn(machine[current]!, action)
      ? machine[current]![action]!
      : undefined;
  if (!outcomes) throw new InvalidTransition(what.resource, what.id, action, current, allowedActions(machine, current));
  const target = to ?? outcomes[0]!;
  if (!outcomes.includes(target))
    throw new Error(`${what.resource} lifecycle: ${action} from ${current} cannot lead to ${target}`);
  return target;
}

/** One kept transition: what happened, from which state to which, when (RFC 3339). */
export interface TransitionEntry {
  readonly action: string;
  readonly from: string;
  readonly to: string;
  readonly at: string;
}

/** How many transitions a record keeps (a recurring task runs forever; the oldest go first). */
export const MAX_TRANSITIONS = 100;

export function withTransition(list: unknown, entry: TransitionEntry): TransitionEntry[] {
  const kept = Array.isArray(list) ? (list as TransitionEntry[]) : [];
  return [...kept, entry].slice(-MAX_TRANSITIONS);
}
