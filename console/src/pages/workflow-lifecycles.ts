/**
 * The workflow lifecycles as the server declares them (docs/workflow.md): for each state, the actions it allows.
 * Pages offer every action of a kind and disable those the current state does not allow, saying why; the server
 * still decides (a move it refuses answers 409 with the actions it allows).
 */

export type Lifecycle = Readonly<Record<string, readonly string[]>>;

export const GOAL_LIFECYCLE: Lifecycle = {
  pending: ['approve', 'complete', 'reject'],
  in_progress: ['complete', 'reject'],
  pending_review: ['approve', 'reject'],
  completed: [],
  failed: [],
};

/** A goal's steps move only while the goal itself is open. */
export const GOAL_STEPS_OPEN = ['pending', 'in_progress'];

export const STEP_LIFECYCLE: Lifecycle = {
  pending: ['start', 'complete', 'fail'],
  in_progress: ['complete', 'fail'],
  completed: [],
  failed: ['start'],
};

export const TASK_LIFECYCLE: Lifecycle = {
  active: ['start', 'fail', 'pause'],
  running: ['succeed', 'fail', 'pause'],
  paused: ['resume'],
  failed: ['resume'],
  completed: ['resume'],
};

export const SCHEDULE_LIFECYCLE: Lifecycle = {
  active: ['pause'],
  paused: ['resume'],
};

/** Every state of a lifecycle, in table order (the status filter's choices). */
export function statesOf(lifecycle: Lifecycle): string[] {
  return Object.keys(lifecycle);
}

/** True when `action` is allowed from `state`. */
export function allows(lifecycle: Lifecycle, state: unknown, action: string): boolean {
  return typeof state === 'string' && Object.hasOwn(lifecycle, state) && lifecycle[state]!.includes(action);
}

/** Why an action is disabled: the state and the actions it does allow. */
export function notAllowedReason(lifecycle: Lifecycle, state: unknown, noun: string): string {
  const allowed = typeof state === 'string' && Object.hasOwn(lifecycle, state) ? lifecycle[state]! : [];
  const rest = allowed.length ? `only ${allowed.join(', ')}` : 'nothing more';
  return `Not while the ${noun} is ${String(state).replace(/_/g, ' ')}: it allows ${rest}`;
}
