/**
 * Goals (protocol.md 2.13): free-form records with `steps` and a review
 * lifecycle (machines.ts). A goal is created `pending` (or `in_progress`
 * when the body says so: a plan that needs no approval); `approve` starts
 * it; its steps run (start, complete with a result, fail with an error)
 * while it is pending or in progress, which is how the official clients use
 * them, right after the create; `complete` with a summary hands it to review
 * (`pending_review`), and the review approves it (back to `in_progress`, or
 * `completed` once every step is completed) or rejects it with a reason
 * (`failed`). Every transition is kept with its time in `transitions` (the
 * goal's and each step's). Lists carry their `count`, as ekoDB's do.
 */
import { Conflict, InvalidInput, NotFound } from '../errors.js';
import { isPlainObject, type Session } from '../engine/index.js';
import { clientMembers, DocumentStore, sameJson, type Doc } from './document-store.js';
import { GOAL_INITIAL_STATES, GOAL_MACHINE, STEP_MACHINE, transition, withTransition } from './machines.js';
import { matchesText } from './text-match.js';

export const GOALS_COLLECTION = '__chat_goals';

/** Members the lifecycle writes: never set by create (except an initial `status`) or update. */
const GOAL_MANAGED = ['transitions', 'summary', 'rejection_reason'];
const STEP_MANAGED = ['status', 'transitions', 'started_at', 'completed_at', 'failed_at', 'result', 'error'];

export type StepAction = 'start' | 'complete' | 'fail';

export class GoalService {
  readonly store: DocumentStore;

  constructor(now: () => number) {
    this.store = new DocumentStore(GOALS_COLLECTION, 'goal', now);
  }

  async list(session: Session): Promise<GoalList> {
    return goalList(await this.store.list(session));
  }

  /** Goals whose text (any string member, steps included) contains every word of `query`, case-insensitively. */
  async search(session: Session, query: string): Promise<GoalList> {
    return goalList((await this.store.list(session)).filter((goal) => matchesText(goal, query)));
  }

  get(session: Session, id: string): Doc {
    return this.store.get(session, id);
  }

  create(session: Session, body: Record<string, unknown>): Promise<Doc> {
    const { status, ...rest } = body;
    const members = clientMembers(rest, GOAL_MANAGED, 'goal');
    if (status !== undefined && (typeof status !== 'string' || !GOAL_INITIAL_STATES.includes(status))) {
      throw new InvalidInput(`A new goal's 'status' must be one of ${GOAL_INITIAL_STATES.join(', ')}`);
    }
    const initial = (status as string | undefined) ?? GOAL_INITIAL_STATES[0]!;
    const steps = members.steps === undefined ? [] : parseSteps(members.steps, []);
    return this.store.create(session, { ...members, steps, status: initial, transitions: [] });
  }

  /**
   * Partial: the members given replace the goal's; new `steps` keep the lifecycle of the steps at the same positions.
   */
  update(session: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    return this.store.change(session, id, (goal) => {
      const members = clientMembers(body, ['status', ...GOAL_MANAGED], 'goal', goal);
      return {
        ...goal,
        ...members,
        ...(members.steps !== undefined ? { steps: parseSteps(members.steps, stepsOf(goal)) } : {}),
      };
    });
  }

  delete(session: Session, id: string) {
    return this.store.delete(session, id);
  }

  complete(session: Session, id: string, summary: string | undefined): Promise<Doc> {
    return this.move(session, id, 'complete', summary === undefined ? {} : { summary });
  }

  /** From review: `completed` when the goal has steps and every one is completed, else back to `in_progress`. */
  approve(session: Session, id: string): Promise<Doc> {
    return this.move(session, id, 'approve', {}, (goal) =>
      goal.status === 'pending_review' && allStepsCompleted(goal) ? 'completed' : 'in_progress',
    );
  }

  reject(session: Session, id: string, reason: string | undefined): Promise<Doc> {
    return this.move(session, id, 'reject', reason === undefined ? {} : { rejection_reason: reason });
  }

  /**
   * A step's lifecycle, while the goal is pending or in progress: `detail` is a complete's result or a fail's error.
   */
  step(session: Session, id: string, index: number, action: StepAction, detail?: unknown): Promise<Doc> {
    return this.store.change(session, id, (goal) => {
      const steps = stepsOf(goal);
      if (index >= steps.length) throw new NotFound(`Goal '${id}' has no step ${index} (it has ${steps.length})`);
      if (!STEPS_OPEN.includes(goal.status)) {
        throw new Conflict(
          `Goal '${id}' is ${goal.status}: its steps change only while it is ${STEPS_OPEN.join(' or ')}`,
        );
      }
      const step = steps[index]!;
      const from = step.status as string;
      const to = transition(STEP_MACHINE, { resource: `step ${index} of goal`, id }, from, action);
      const at = this.store.at();
      const outcome =
        action === 'start'
          ? { started_at: at }
          : action === 'complete'
            ? { completed_at: at, result: detail ?? null }
            : { failed_at: at, error: detail ?? null };
      const next = {
        ...step,
        ...outcome,
        status: to,
        transitions: withTransition(step.transitions, { action, from, to, at }),
      };
      return { ...goal, steps: steps.map((s, i) => (i === index ? next : s)) };
    });
  }

  /** A transition; `pick` chooses among the action's outcomes (machines.ts checks the choice). */
  private move(
    session: Session,
    id: string,
    action: string,
    members: Record<string, unknown>,
    pick?: (goal: Doc) => string,
  ): Promise<Doc> {
    return this.store.change(session, id, (goal) => {
      const to = transition(GOAL_MACHINE, { resource: 'goal', id }, goal.status, action, pick?.(goal));
      const transitions = withTransition(goal.transitions, { action, from: goal.status, to, at: this.store.at() });
      return { ...goal, ...members, status: to, transitions };
    });
  }
}

/** The goal states in which its steps may change: before review, and never once it has ended. */
const STEPS_OPEN: readonly string[] = ['pending', 'in_progress'];

export interface GoalList {
  readonly count: number;
  readonly goals: Doc[];
}

function goalList(goals: Doc[]): GoalList {
  return { count: goals.length, goals };
}

function allStepsCompleted(goal: Doc): boolean {
  const steps = stepsOf(goal);
  return steps.length > 0 && steps.every((s) => s.status === 'completed');
}

function stepsOf(goal: Doc): Record<string, unknown>[] {
  return Array.isArray(goal.steps) ? goal.steps.filter(isPlainObject) : [];
}

/**
 * A `steps` list: objects (a string is taken as its `description`). A step's
 * lifecycle members are the server's: a new step starts `pending`, a step
 * replacing one at the same position keeps that one's lifecycle.
 */
function parseSteps(given: unknown, previous: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  if (!Array.isArray(given)) throw new InvalidInput("'steps' must be an array");
  return given.map((entry, index) => {
    const step = typeof entry === 'string' ? { description: entry } : entry;
    if (!isPlainObject(step)) throw new InvalidInput(`'steps[${index}]' must be an object or a string`);
    const kept = previous[index];
    for (const name of STEP_MANAGED) {
      if (Object.hasOwn(step, name) && !(kept && sameJson(step[name], kept[name]))) {
        throw new InvalidInput(`'steps[${index}].${name}' is managed by the step routes and cannot be set`);
      }
    }
    const lifecycle = kept
      ? Object.fromEntries(STEP_MANAGED.filter((name) => Object.hasOwn(kept, name)).map((name) => [name, kept[name]]))
      : { status: 'pending', transitions: [] };
    return { ...step, ...lifecycle };
  });
}
