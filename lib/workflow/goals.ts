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

  async list(db: Session): Promise<GoalList> {
    return goalList(await this.store.list(db));
  }

  /** Goals whose text (any string member, steps included) contains every word of `q`, case-insensitively. */
  async search(db: Session, q: string): Promise<GoalList> {
    return goalList((await this.store.list(db)).filter((g) => matchesText(g, q)));
  }

  get(db: Session, id: string): Doc {
    return this.store.get(db, id);
  }

  create(db: Session, body: Record<string, unknown>): Promise<Doc> {
    const { status, ...rest } = body;
    const members = clientMembers(rest, GOAL_MANAGED, 'goal');
    if (status !== undefined && (typeof status !== 'string' || !GOAL_INITIAL_STATES.includes(status))) {
      throw new InvalidInput(`A new goal's 'status' must be one of ${GOAL_INITIAL_STATES.join(', ')}`);
    }
    const initial = (status as string | undefined) ?? GOAL_INITIAL_STATES[0]!;
    const steps = members.steps === undefined ? [] : parseSteps(members.steps, []);
    return this.store.create(db, { ...members, steps, status: initial, transitions: [] });
  }

  /** Partial: the members given replace the goal's; new `steps` keep the lifecycle of the steps at the same positions. */
  update(db: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    return this.store.change(db, id, (g) => {
      const members = clientMembers(body, ['status', ...GOAL_MANAGED], 'goal', g);
      return { ...g, ...members, ...(members.steps !== undefined ? { steps: parseSteps(members.steps, stepsOf(g)) } : {}) };
    });
  }

  delete(db: Session, id: string) {
    return this.store.delete(db, id);
  }

  complete(db: Session, id: string, summary: string | undefined): Promise<Doc> {
    return this.move(db, id, 'complete', summary === undefined ? {} : { summary });
  }

  /** From review: `completed` when the goal has steps and every one is completed, else back to `in_progress`. */
  approve(db: Session, id: string): Promise<Doc> {
    return this.move(db, id, 'approve', {}, (g) => (g.status === 'pending_review' && allStepsCompleted(g) ? 'completed' : 'in_progress'));
  }

  reject(db: Session, id: string, reason: string | undefined): Promise<Doc> {
    return this.move(db, id, 'reject', reason === undefined ? {} : { rejection_reason: reason });
  }

  /** A step's lifecycle, while the goal is pending or in progress: `detail` is a complete's result or a fail's error. */
  step(db: Session, id: string, index: number, action: StepAction, detail?: unknown): Promise<Doc> {
    return this.store.change(db, id, (g) => {
      const steps = stepsOf(g);
      if (index >= steps.length) throw new NotFound(`Goal '${id}' has no step ${index} (it has ${steps.length})`);
      if (!STEPS_OPEN.includes(g.status)) throw new Conflict(`Goal '${id}' is ${g.status}: its steps change only while it is ${STEPS_OPEN.join(' or ')}`);
      const step = steps[index]!;
      const from = step.status as string;
      const to = transition(STEP_MACHINE, { resource: `step ${index} of goal`, id }, from, action);
      const at = this.store.at();
      const outcome = action === 'start' ? { started_at: at } : action === 'complete' ? { completed_at: at, result: detail ?? null } : { failed_at: at, error: detail ?? null };
      const next = { ...step, ...outcome, status: to, transitions: withTransition(step.transitions, { action, from, to, at }) };
      return { ...g, steps: steps.map((s, i) => (i === index ? next : s)) };
    });
  }

  /** A transition; `pick` chooses among the action's outcomes (machines.ts checks the choice). */
  private move(db: Session, id: string, action: string, members: Record<string, unknown>, pick?: (g: Doc) => string): Promise<Doc> {
    return this.store.change(db, id, (g) => {
      const to = transition(GOAL_MACHINE, { resource: 'goal', id }, g.status, action, pick?.(g));
      return { ...g, ...members, status: to, transitions: withTransition(g.transitions, { action, from: g.status, to, at: this.store.at() }) };
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

function allStepsCompleted(g: Doc): boolean {
  const steps = stepsOf(g);
  return steps.length > 0 && steps.every((s) => s.status === 'completed');
}

function stepsOf(g: Doc): Record<string, unknown>[] {
  return Array.isArray(g.steps) ? g.steps.filter(isPlainObject) : [];
}

/**
 * A `steps` list: objects (a string is taken as its `description`). A step's
 * lifecycle members are the server's: a new step starts `pending`, a step
 * replacing one at the same position keeps that one's lifecycle.
 */
function parseSteps(given: unknown, previous: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  if (!Array.isArray(given)) throw new InvalidInput("'steps' must be an array");
  return given.map((s, i) => {
    const step = typeof s === 'string' ? { description: s } : s;
    if (!isPlainObject(step)) throw new InvalidInput(`'steps[${i}]' must be an object or a string`);
    const kept = previous[i];
    for (const name of STEP_MANAGED) {
      if (Object.hasOwn(step, name) && !(kept && sameJson(step[name], kept[name]))) {
        throw new InvalidInput(`'steps[${i}].${name}' is managed by the step routes and cannot be set`);
      }
    }
    const lifecycle = kept ? Object.fromEntries(STEP_MANAGED.filter((k) => Object.hasOwn(kept, k)).map((k) => [k, kept[k]])) : { status: 'pending', transitions: [] };
    return { ...step, ...lifecycle };
  });
}
