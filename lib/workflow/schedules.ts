/**
 * Schedules (protocol.md 2.14): free-form records whose `cron` (5 or 6
 * fields or an alias, on the wall clock of `timezone`) fires an action
 * (schedule-action.ts). The server keeps `status` (active | paused, moved
 * only by pause/resume through SCHEDULE_MACHINE), `next_run`, `last_run`,
 * run counters and the kept transitions. Runs are records of their own
 * (`GET /api/schedules/{id}/runs`), newest first. The firing itself is the
 * Scheduler's (scheduler.ts); this module keeps the records.
 *
 * `missed_runs` (`skip`, the default, or `run_once`) says what happens to
 * instants that passed while the server was down.
 */
import { InvalidInput, NotFound } from '../errors.js';
import { CronSchedule, type Session } from '../engine/index.js';
import { actionOf } from './schedule-action.js';
import { clientMembers, DocumentStore, type Doc } from './document-store.js';
import { SCHEDULE_MACHINE, transition, withTransition } from './machines.js';

export const SCHEDULES_COLLECTION = '__schedules';
export const SCHEDULE_RUNS_COLLECTION = '__schedule_runs';
export const MISSED_RUN_POLICIES: readonly string[] = ['skip', 'run_once'];
/** Runs kept per schedule (a schedule firing every second runs forever; the oldest go first). */
export const MAX_KEPT_RUNS = 200;
export const DEFAULT_RUNS_LIMIT = 50;

const SCHEDULE_MANAGED = [
  'next_run',
  'last_run',
  'transitions',
  'run_count',
  'success_count',
  'failure_count',
  'skipped_count',
  'last_outcome',
  'last_error',
];
const INITIAL_STATES = ['active', 'paused'];

export type RunOutcome = 'success' | 'failure' | 'skipped';

/** A record deleted meanwhile (a schedule deleted during its run) is no error for the scheduler; anything else is. */
function ignoreGone(err: unknown): undefined {
  if (err instanceof NotFound) return undefined;
  throw err;
}

const iso = (ms: number) => new Date(ms).toISOString();
const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** The schedule's cron (400 for a missing or bad expression or time zone). */
export function cronOf(schedule: Record<string, unknown>): CronSchedule {
  if (typeof schedule.cron !== 'string') throw new InvalidInput("A schedule needs a 'cron' expression string");
  const tz = schedule.timezone;
  if (tz !== undefined && tz !== null && typeof tz !== 'string')
    throw new InvalidInput("'timezone' must be a time zone name");
  return CronSchedule.parse(schedule.cron, (tz as string | null | undefined) ?? undefined);
}

/** The schedule's policy for runs missed while the server was down. */
export function missedRunPolicy(schedule: Record<string, unknown>): 'skip' | 'run_once' {
  const policy = schedule.missed_runs ?? 'skip';
  if (typeof policy !== 'string' || !MISSED_RUN_POLICIES.includes(policy)) {
    throw new InvalidInput(`'missed_runs' must be one of ${MISSED_RUN_POLICIES.join(', ')}`);
  }
  return policy as 'skip' | 'run_once';
}

/** The first cron instant strictly after `now` as RFC 3339, or null when the expression never fires again. */
export function nextRunAfter(schedule: Record<string, unknown>, now: number): string | null {
  const next = cronOf(schedule).next(now);
  return next === undefined ? null : iso(next);
}

function check(schedule: Record<string, unknown>): void {
  cronOf(schedule);
  actionOf(schedule);
  missedRunPolicy(schedule);
}

/**
 * The wanted initial status: `status`, else `paused: true` or `enabled: false` (the clients' spellings) mean paused.
 */
function initialStatus(body: Record<string, unknown>): string {
  const { status } = body;
  if (status !== undefined) {
    if (typeof status !== 'string' || !INITIAL_STATES.includes(status))
      throw new InvalidInput(`A new schedule's 'status' must be one of ${INITIAL_STATES.join(', ')}`);
    return status;
  }
  return body.paused === true || body.enabled === false ? 'paused' : 'active';
}

export class ScheduleService {
  readonly store: DocumentStore;
  readonly runs: DocumentStore;

  constructor(private readonly now: () => number) {
    this.store = new DocumentStore(SCHEDULES_COLLECTION, 'schedule', now);
    this.runs = new DocumentStore(SCHEDULE_RUNS_COLLECTION, 'schedule run', now);
  }

  async list(session: Session): Promise<{ schedules: Doc[] }> {
    return { schedules: await this.store.list(session) };
  }

  get(session: Session, id: string): Doc {
    return this.store.get(session, id);
  }

  create(session: Session, body: Record<string, unknown>): Promise<Doc> {
    const { status: _status, ...rest } = body;
    const status = initialStatus(body);
    const members = clientMembers(rest, SCHEDULE_MANAGED, 'schedule');
    check(members);
    return this.store.create(session, {
      ...members,
      status,
      missed_runs: missedRunPolicy(members),
      next_run: status === 'active' ? nextRunAfter(members, this.now()) : null,
      last_run: null,
      run_count: 0,
      success_count: 0,
      failure_count: 0,
      skipped_count: 0,
      transitions: [],
    });
  }

  /** Partial; a change of `cron` or `timezone` recomputes `next_run` of an active schedule. */
  update(session: Session, id: string, body: Record<string, unknown>): Promise<Doc> {
    return this.store.change(session, id, (schedule) => {
      const members = clientMembers(body, ['status', ...SCHEDULE_MANAGED], 'schedule', schedule);
      const merged = { ...schedule, ...members };
      check(merged);
      const rescheduled = Object.hasOwn(members, 'cron') || Object.hasOwn(members, 'timezone');
      const nextRun =
        rescheduled && schedule.status === 'active' ? nextRunAfter(merged, this.now()) : (schedule.next_run ?? null);
      return { ...merged, next_run: nextRun };
    });
  }

  /** Deletes the schedule and its runs. */
  async delete(session: Session, id: string): Promise<Record<string, unknown>> {
    const out = await this.store.delete(session, id);
    for (const run of await this.runsOf(session, id)) await this.runs.delete(session, run.id);
    return out;
  }

  pause(session: Session, id: string): Promise<Doc> {
    return this.move(session, id, 'pause', () => ({ next_run: null }));
  }

  /** Active again from now on: the next cron instant after now (instants passed while paused are not run). */
  resume(session: Session, id: string): Promise<Doc> {
    return this.move(session, id, 'resume', (schedule) => ({ next_run: nextRunAfter(schedule, this.now()) }));
  }

  /** `{runs}` of schedule `id`, newest first, at most `limit`. */
  async listRuns(session: Session, id: string, limit = DEFAULT_RUNS_LIMIT): Promise<{ runs: Doc[] }> {
    this.store.get(session, id);
    return { runs: (await this.runsOf(session, id)).reverse().slice(0, limit) };
  }

  /** Runs of `id`, oldest first. */
  async runsOf(session: Session, id: string): Promise<Doc[]> {
    return (await this.runs.list(session)).filter((run) => run.schedule_id === id);
  }

  /**
   * Claims instant `scheduledFor` of an active schedule before anything runs:
   * `last_run` becomes it and `next_run` the following instant, stored first,
   * so a restart never fires that instant again. Undefined when the schedule
   * is gone, paused or not due at that instant (a racing pause or update).
   */
  async claim(session: Session, id: string, scheduledFor: string, now: number): Promise<Doc | undefined> {
    const found = this.store.find(session, id);
    if (!found || found.status !== 'active' || found.next_run !== scheduledFor) return undefined;
    let claimed = false;
    const changed = await this.store
      .change(session, id, (current) => {
        if (current.status !== 'active' || current.next_run !== scheduledFor) return current;
        claimed = true;
        return {
          ...current,
          last_run: scheduledFor,
          next_run: nextRunAfter(current, Math.max(now, Date.parse(scheduledFor))),
        };
      })
      .catch(ignoreGone);
    return claimed ? changed : undefined;
  }

  /** Starts a run record (status `running`) for `scheduledFor`. */
  startRun(session: Session, id: string, scheduledFor: string): Promise<Doc> {
    const at = this.store.at();
    return this.runs.create(session, {
      schedule_id: id,
      scheduled_for: scheduledFor,
      started_at: at,
      ended_at: null,
      status: 'running',
      outcome: null,
    });
  }

  /**
   * Ends run `run` with `outcome` and counts it on the schedule, then drops
   * runs beyond MAX_KEPT_RUNS; nothing when the schedule was deleted meanwhile.
   */
  async endRun(
    session: Session,
    run: Doc,
    outcome: RunOutcome,
    detail: { error?: string; result?: unknown },
  ): Promise<Doc | undefined> {
    const ended = await this.runs
      .change(session, run.id, (current) => ({
        ...current,
        ended_at: this.store.at(),
        status: outcome,
        outcome,
        ...(detail.error !== undefined ? { error: detail.error } : {}),
        ...(detail.result !== undefined ? { result: detail.result } : {}),
      }))
      .catch(ignoreGone); // the schedule, and so its runs, deleted during the run
    if (!ended) return undefined;
    const id = run.schedule_id as string;
    if (this.store.find(session, id)) {
      await this.store
        .change(session, id, (schedule) => ({
          ...schedule,
          run_count: count(schedule.run_count) + 1,
          last_outcome: outcome,
          last_error: detail.error ?? null,
          [`${outcome}_count`]: count(schedule[`${outcome}_count`]) + 1,
        }))
        .catch(ignoreGone);
    }
    const kept = await this.runsOf(session, id);
    for (const old of kept.slice(0, Math.max(0, kept.length - MAX_KEPT_RUNS))) {
      await this.runs.delete(session, old.id).catch(ignoreGone);
    }
    return ended;
  }

  /**
   * Runs still marked running when the server starts: the previous process stopped during them; they end as failures.
   */
  async endInterrupted(session: Session): Promise<void> {
    for (const run of (await this.runs.list(session)).filter((x) => x.status === 'running')) {
      await this.runs.change(session, run.id, (current) => ({
        ...current,
        ended_at: this.store.at(),
        status: 'failure',
        outcome: 'failure',
        error: 'interrupted: the server stopped during the run',
      }));
    }
  }

  /** A run that did not happen (an overlap, or an instant missed while down), recorded as `skipped`. */
  async skipRun(session: Session, id: string, scheduledFor: string, reason: string): Promise<Doc | undefined> {
    return this.endRun(session, await this.startRun(session, id, scheduledFor), 'skipped', { error: reason });
  }

  private move(
    session: Session,
    id: string,
    action: string,
    members: (schedule: Doc) => Record<string, unknown>,
  ): Promise<Doc> {
    return this.store.change(session, id, (schedule) => {
      const to = transition(SCHEDULE_MACHINE, { resource: 'schedule', id }, schedule.status, action);
      const transitions = withTransition(schedule.transitions, {
        action,
        from: schedule.status,
        to,
        at: this.store.at(),
      });
      return { ...schedule, ...members(schedule), status: to, transitions };
    });
  }
}
