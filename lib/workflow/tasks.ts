/**
 * Tasks (protocol.md 2.13): free-form records that are due. A task's
 * `cron` (or `schedule`, the Rust clients' name; 5 or 6 fields or an alias
 * like `@daily`, on the wall clock of its `timezone`) and/or `due_at`
 * (RFC 3339; the first run) give `next_run`; a task with neither is run by
 * hand only (`next_run: null`). `GET /tasks/due?now=` lists the active tasks
 * whose `next_run` is at or before `now`.
 *
 * A run: `start` (running), then `succeed` with an output (active with the
 * next cron time, or completed for a one-off) or `fail` with an error (active
 * again with `next_run` = now + `retry_delay_secs` (default 0) while
 * `retry_count` <= `max_retries` (default 3), else failed). `pause` and
 * `resume` (optionally with `{next_run}`) take effect at once; resuming a
 * failed task resets its retries. Updating `cron`, `schedule`, `timezone`
 * or `due_at` recomputes `next_run` (a new `due_at` first, else the next
 * cron time). Time is the engine's clock.
 */
import { InvalidInput } from '../errors.js';
import { CronSchedule, type Session } from '../engine/index.js';
import { clientMembers, DocumentStore, type Doc } from './document-store.js';
import { TASK_MACHINE, transition, withTransition } from './machines.js';

export const TASKS_COLLECTION = '__chat_tasks';
export const DEFAULT_MAX_RETRIES = 3;

const TASK_MANAGED = [
  'transitions',
  'run_count',
  'success_count',
  'failure_count',
  'retry_count',
  'last_started_at',
  'last_run_at',
  'last_output',
  'last_error',
];
const TASK_INITIAL_STATES = ['active', 'paused'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 time as epoch ms (400 naming `name` otherwise). */
export function parseTime(value: unknown, name: string): number {
  const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInput(`'${name}' must be an RFC 3339 time, e.g. 2026-01-01T09:00:00Z`);
  return ms;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The task's cron schedule, if it has one (400 for a bad expression or time zone). */
function cronOf(task: Record<string, unknown>): CronSchedule | undefined {
  const expr = task.cron ?? task.schedule;
  if (expr === undefined || expr === null) return undefined;
  if (typeof expr !== 'string') {
    throw new InvalidInput(`'${task.cron !== undefined ? 'cron' : 'schedule'}' must be a cron expression string`);
  }
  const tz = task.timezone;
  if (tz !== undefined && tz !== null && typeof tz !== 'string')
    throw new InvalidInput("'timezone' must be a time zone name");
  return CronSchedule.parse(expr, (tz as string | null | undefined) ?? undefined);
}

function nonNegativeInt(task: Record<string, unknown>, name: string, fallback: number): number {
  const value = task[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new InvalidInput(`'${name}' must be a non-negative integer`);
  return value;
}

/**
 * Checks the schedule members of a task body: cron/schedule, timezone, due_at, next_run, max_retries, retry_delay_secs.
 */
function checkSchedule(task: Record<string, unknown>): void {
  cronOf(task);
  if (task.due_at !== undefined && task.due_at !== null) parseTime(task.due_at, 'due_at');
  if (task.next_run !== undefined && task.next_run !== null) parseTime(task.next_run, 'next_run');
  nonNegativeInt(task, 'max_retries', DEFAULT_MAX_RETRIES);
  nonNegativeInt(task, 'retry_delay_secs', 0);
}

export class TaskService {
  readonly store: DocumentStore;

  constructor(private readonly now: () => number) {
    this.store = new DocumentStore(TASKS_COLLECTION, 'task', now);
  }

  async list(session: Session): Promise<{ tasks: Doc[] }> {
    return { tasks: await this.store.list(session) };
  }

  /** Active tasks due at or before `now` (the engine's clock when absent), soonest first. */
  async due(session: Session, now?: number): Promise<{ tasks: Doc[] }> {
    const at = now ?? this.now();
    const due = (await this.store.list(session)).filter(
      (t) => t.status === 'active' && typeof t.next_run === 'string' && Date.parse(t.next_run) <= at,
    );
    return { tasks: due.sort((a, b) => Date.parse(a.next_run as string) - Date.parse(b.next_run as string)) };
  }

  get(session: Session, id: string): Doc {
    return this.store.get(session, id);
  }

  create(session: Session, body: Record<string, unknown>): Promise<Doc> {
    const { status, ...rest } = body;
    const members = clientMembers(rest, TASK_MANAGED, 'task');
    if (status !== undefined && (typeof status !== 'string' || !TASK_INITIAL_STATES.includes(status))) {
      throw new InvalidInput(`A new task's 'status' must be one of ${TASK_INITIAL_STATES.join(', ')}`);
    }
    checkSchedule(members);
    const given = members.next_run;
    const next = given !== undefined && given !== null ? iso(parseTime(given, 'next_run')) : this.firstRun(members);
    return this.store.create(session, {
      ...members,
      status: status ?? 'active',
      next_run: next,
      max_retries: nonNegativeInt(members, 'max_retries', DEFAULT_MAX_RETRIES),
      run_count: 0,
      success_count: 0,
      failure_count: 0,
      retry_count: 0,
      transitions: [],
    });
  }

  /** Partial; changing `cron`, `schedule`, `timezone` or `due_at` recomputes `next_run` (unless the body sets it). */
  update(session: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    return this.store.change(session, id, (task) => {
      const members = clientMembers(body, ['status', ...TASK_MANAGED], 'task', task);
      const merged = { ...task, ...members };
      checkSchedule(merged);
      const rescheduled = ['cron', 'schedule', 'timezone', 'due_at'].some((name) => Object.hasOwn(members, name));
      const asked = members.next_run;
      const given = asked === undefined || asked === null ? asked : iso(parseTime(asked, 'next_run'));
      const next = Object.hasOwn(members, 'next_run')
        ? given
        : rescheduled
          ? this.rescheduled(merged, members)
          : task.next_run;
      return { ...merged, next_run: next ?? null };
    });
  }

  delete(session: Session, id: string) {
    return this.store.delete(session, id);
  }

  start(session: Session, id: string): Promise<Doc> {
    return this.move(session, id, 'start', () => ({ last_started_at: this.store.at() }));
  }

  succeed(session: Session, id: string, output: unknown): Promise<Doc> {
    return this.move(session, id, 'succeed', (task) => {
      const next = this.nextCronRun(task);
      return {
        to: next === null ? 'completed' : 'active',
        next_run: next,
        last_output: output ?? null,
        last_error: null,
        last_run_at: this.store.at(),
        run_count: count(task.run_count) + 1,
        success_count: count(task.success_count) + 1,
        retry_count: 0,
      };
    });
  }

  fail(session: Session, id: string, error: unknown): Promise<Doc> {
    return this.move(session, id, 'fail', (task) => {
      const retries = count(task.retry_count) + 1;
      const retry = retries <= nonNegativeInt(task, 'max_retries', DEFAULT_MAX_RETRIES);
      return {
        to: retry ? 'active' : 'failed',
        next_run: retry ? iso(this.now() + nonNegativeInt(task, 'retry_delay_secs', 0) * 1000) : null,
        last_error: error ?? null,
        last_run_at: this.store.at(),
        run_count: count(task.run_count) + 1,
        failure_count: count(task.failure_count) + 1,
        retry_count: retries,
      };
    });
  }

  pause(session: Session, id: string): Promise<Doc> {
    return this.move(session, id, 'pause', () => ({}));
  }

  /** Active again: `next_run` from the body, else the next cron time, else now (a one-off runs again). */
  resume(session: Session, id: string, nextRun: number | undefined): Promise<Doc> {
    return this.move(session, id, 'resume', (task) => ({
      next_run:
        nextRun !== undefined
          ? iso(nextRun)
          : (this.nextCronRun(task) ??
            (task.status === 'paused' && task.next_run !== undefined ? task.next_run : iso(this.now()))),
      ...(task.status === 'failed' ? { retry_count: 0 } : {}),
    }));
  }

  /** `due_at` when given, else the first cron time after now, else null (run by hand). */
  private firstRun(task: Record<string, unknown>): string | null {
    if (task.due_at !== undefined && task.due_at !== null) return iso(parseTime(task.due_at, 'due_at'));
    return this.nextCronRun(task);
  }

  /** After an update of the schedule: a new `due_at`, else the next cron time, else the (kept) `due_at`. */
  private rescheduled(merged: Record<string, unknown>, changed: Record<string, unknown>): string | null {
    if (changed.due_at !== undefined && changed.due_at !== null) return iso(parseTime(changed.due_at, 'due_at'));
    return this.nextCronRun(merged) ?? this.firstRun(merged);
  }

  private nextCronRun(task: Record<string, unknown>): string | null {
    const next = cronOf(task)?.next(this.now());
    return next === undefined ? null : iso(next);
  }

  /** A transition whose members (and, for two-outcome actions, target `to`) `members` computes from the task. */
  private move(
    session: Session,
    id: string,
    action: string,
    members: (task: Doc) => Record<string, unknown> & { to?: string },
  ): Promise<Doc> {
    return this.store.change(session, id, (task) => {
      const { to: wanted, ...rest } = members(task);
      const to = transition(TASK_MACHINE, { resource: 'task', id }, task.status, action, wanted);
      const transitions = withTransition(task.transitions, { action, from: task.status, to, at: this.store.at() });
      return { ...task, ...rest, status: to, transitions };
    });
  }
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
