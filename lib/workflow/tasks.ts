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
  'transitions', 'run_count', 'success_count', 'failure_count', 'retry_count', 'last_started_at', 'last_run_at', 'last_output', 'last_error',
];
const TASK_INITIAL_STATES = ['active', 'paused'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 time as epoch ms (400 naming `name` otherwise). */
export function parseTime(v: unknown, name: string): number {
  const ms = typeof v === 'string' && RFC3339.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInput(`'${name}' must be an RFC 3339 time, e.g. 2026-01-01T09:00:00Z`);
  return ms;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The task's cron schedule, if it has one (400 for a bad expression or time zone). */
function cronOf(t: Record<string, unknown>): CronSchedule | undefined {
  const expr = t.cron ?? t.schedule;
  if (expr === undefined || expr === null) return undefined;
  if (typeof expr !== 'string') throw new InvalidInput(`'${t.cron !== undefined ? 'cron' : 'schedule'}' must be a cron expression string`);
  const tz = t.timezone;
  if (tz !== undefined && tz !== null && typeof tz !== 'string') throw new InvalidInput("'timezone' must be a time zone name");
  return CronSchedule.parse(expr, (tz as string | null | undefined) ?? undefined);
}

function nonNegativeInt(t: Record<string, unknown>, name: string, fallback: number): number {
  const v = t[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new InvalidInput(`'${name}' must be a non-negative integer`);
  return v;
}

/** Checks the schedule members of a task body: cron/schedule, timezone, due_at, next_run, max_retries, retry_delay_secs. */
function checkSchedule(t: Record<string, unknown>): void {
  cronOf(t);
  if (t.due_at !== undefined && t.due_at !== null) parseTime(t.due_at, 'due_at');
  if (t.next_run !== undefined && t.next_run !== null) parseTime(t.next_run, 'next_run');
  nonNegativeInt(t, 'max_retries', DEFAULT_MAX_RETRIES);
  nonNegativeInt(t, 'retry_delay_secs', 0);
}

export class TaskService {
  readonly store: DocumentStore;

  constructor(private readonly now: () => number) {
    this.store = new DocumentStore(TASKS_COLLECTION, 'task', now);
  }

  async list(db: Session): Promise<{ tasks: Doc[] }> {
    return { tasks: await this.store.list(db) };
  }

  /** Active tasks due at or before `now` (the engine's clock when absent), soonest first. */
  async due(db: Session, now?: number): Promise<{ tasks: Doc[] }> {
    const at = now ?? this.now();
    const due = (await this.store.list(db)).filter((t) => t.status === 'active' && typeof t.next_run === 'string' && Date.parse(t.next_run) <= at);
    return { tasks: due.sort((a, b) => Date.parse(a.next_run as string) - Date.parse(b.next_run as string)) };
  }

  get(db: Session, id: string): Doc {
    return this.store.get(db, id);
  }

  create(db: Session, body: Record<string, unknown>): Promise<Doc> {
    const { status, ...rest } = body;
    const members = clientMembers(rest, TASK_MANAGED, 'task');
    if (status !== undefined && (typeof status !== 'string' || !TASK_INITIAL_STATES.includes(status))) {
      throw new InvalidInput(`A new task's 'status' must be one of ${TASK_INITIAL_STATES.join(', ')}`);
    }
    checkSchedule(members);
    const next = members.next_run !== undefined && members.next_run !== null ? iso(parseTime(members.next_run, 'next_run')) : this.firstRun(members);
    return this.store.create(db, {
      ...members, status: status ?? 'active', next_run: next, max_retries: nonNegativeInt(members, 'max_retries', DEFAULT_MAX_RETRIES),
      run_count: 0, success_count: 0, failure_count: 0, retry_count: 0, transitions: [],
    });
  }

  /** Partial; changing `cron`, `schedule`, `timezone` or `due_at` recomputes `next_run` (unless the body sets it). */
  update(db: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    return this.store.change(db, id, (t) => {
      const members = clientMembers(body, ['status', ...TASK_MANAGED], 'task', t);
      const merged = { ...t, ...members };
      checkSchedule(merged);
      const rescheduled = ['cron', 'schedule', 'timezone', 'due_at'].some((k) => Object.hasOwn(members, k));
      const given = members.next_run === undefined || members.next_run === null ? members.next_run : iso(parseTime(members.next_run, 'next_run'));
      const next = Object.hasOwn(members, 'next_run') ? given : rescheduled ? this.rescheduled(merged, members) : t.next_run;
      return { ...merged, next_run: next ?? null };
    });
  }

  delete(db: Session, id: string) {
    return this.store.delete(db, id);
  }

  start(db: Session, id: string): Promise<Doc> {
    return this.move(db, id, 'start', () => ({ last_started_at: this.store.at() }));
  }

  succeed(db: Session, id: string, output: unknown): Promise<Doc> {
    return this.move(db, id, 'succeed', (t) => {
      const next = this.nextCronRun(t);
      return {
        to: next === null ? 'completed' : 'active', next_run: next, last_output: output ?? null, last_error: null, last_run_at: this.store.at(),
        run_count: count(t.run_count) + 1, success_count: count(t.success_count) + 1, retry_count: 0,
      };
    });
  }

  fail(db: Session, id: string, error: unknown): Promise<Doc> {
    return this.move(db, id, 'fail', (t) => {
      const retries = count(t.retry_count) + 1;
      const retry = retries <= nonNegativeInt(t, 'max_retries', DEFAULT_MAX_RETRIES);
      return {
        to: retry ? 'active' : 'failed', next_run: retry ? iso(this.now() + nonNegativeInt(t, 'retry_delay_secs', 0) * 1000) : null,
        last_error: error ?? null, last_run_at: this.store.at(),
        run_count: count(t.run_count) + 1, failure_count: count(t.failure_count) + 1, retry_count: retries,
      };
    });
  }

  pause(db: Session, id: string): Promise<Doc> {
    return this.move(db, id, 'pause', () => ({}));
  }

  /** Active again: `next_run` from the body, else the next cron time, else now (a one-off runs again). */
  resume(db: Session, id: string, nextRun: number | undefined): Promise<Doc> {
    return this.move(db, id, 'resume', (t) => ({
      next_run: nextRun !== undefined ? iso(nextRun) : this.nextCronRun(t) ?? (t.status === 'paused' && t.next_run !== undefined ? t.next_run : iso(this.now())),
      ...(t.status === 'failed' ? { retry_count: 0 } : {}),
    }));
  }

  /** `due_at` when given, else the first cron time after now, else null (run by hand). */
  private firstRun(t: Record<string, unknown>): string | null {
    if (t.due_at !== undefined && t.due_at !== null) return iso(parseTime(t.due_at, 'due_at'));
    return this.nextCronRun(t);
  }

  /** After an update of the schedule: a new `due_at`, else the next cron time, else the (kept) `due_at`. */
  private rescheduled(merged: Record<string, unknown>, changed: Record<string, unknown>): string | null {
    if (changed.due_at !== undefined && changed.due_at !== null) return iso(parseTime(changed.due_at, 'due_at'));
    return this.nextCronRun(merged) ?? this.firstRun(merged);
  }

  private nextCronRun(t: Record<string, unknown>): string | null {
    const next = cronOf(t)?.next(this.now());
    return next === undefined ? null : iso(next);
  }

  /** A transition whose members (and, for two-outcome actions, target `to`) `members` computes from the task. */
  private move(db: Session, id: string, action: string, members: (t: Doc) => Record<string, unknown> & { to?: string }): Promise<Doc> {
    return this.store.change(db, id, (t) => {
      const { to: wanted, ...rest } = members(t);
      const to = transition(TASK_MACHINE, { resource: 'task', id }, t.status, action, wanted);
      return { ...t, ...rest, status: to, transitions: withTransition(t.transitions, { action, from: t.status, to, at: this.store.at() }) };
    });
  }
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
