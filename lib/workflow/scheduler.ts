/**
 * Fires schedules (one Scheduler per server). `tick()` looks at the
 * engine's clock and fires every active schedule whose `next_run` has come:
 * it claims the instant first (ScheduleService.claim stores `last_run` and
 * the following `next_run` before the action starts, so one instant never
 * fires twice, even across a restart), then runs the action in the
 * background and records the run. A schedule whose previous run is still
 * going records the instant as `skipped` instead of stacking a second run.
 *
 * Time is the engine's injectable clock: production calls `tick()` from a
 * real interval (`start(intervalMs)`); specs on a ManualClock advance the
 * clock and call `tick()` themselves, then `idle()` to wait for the runs.
 *
 * `start()` first settles the instants missed while the server was down,
 * per schedule `missed_runs`: `skip` (default) records one skipped run and
 * moves on to the next instant after now; `run_once` runs the action once
 * for the latest missed instant. Runs left `running` by a process that
 * stopped mid-run end as failures ("interrupted"). Firing is at most once per
 * instant: an instant claimed just before a crash is not run again.
 */
import type { Session } from '../engine/index.js';
import type { CallResult } from '../functions/index.js';
import { outboundFetch, type OutboundPolicy } from '../outbound/index.js';
import type { Doc } from './document-store.js';
import type { ScheduleAction } from './schedule-action.js';
import { actionOf } from './schedule-action.js';
import { cronOf, missedRunPolicy, nextRunAfter, type ScheduleService } from './schedules.js';

export interface SchedulerDeps {
  readonly schedules: ScheduleService;
  /** A system session (instance-wide rights, like a stored function's steps). */
  readonly session: () => Session;
  readonly now: () => number;
  readonly callFunction: (label: string, parameters: Record<string, unknown>) => Promise<CallResult>;
  readonly outbound: () => OutboundPolicy;
  readonly warn: (msg: string, cause?: unknown) => void;
  /** Told of every run recorded, by outcome (the server's metrics); must not throw. */
  readonly ran?: (outcome: ScheduleOutcome) => void;
}

/** How a run ended: its action succeeded or failed, or the instant was skipped. */
export type ScheduleOutcome = 'success' | 'failure' | 'skipped';

/** Response text kept in an HTTP run's result. */
const MAX_RESULT_TEXT = 4096;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  /** Schedule id -> its run in progress, and what it is ("'nightly' (id ...)"). */
  private readonly running = new Map<string, { readonly run: Promise<void>; readonly what: string }>();
  private stopped = false;
  /** Set while ticks keep failing (read-only storage, say): the failure is logged once, not four times a second. */
  private failing = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Settles missed runs, then ticks every `intervalMs` (0: only when `tick()` is called). */
  async start(intervalMs: number): Promise<void> {
    await this.catchUp();
    if (intervalMs > 0 && !this.stopped) {
      this.timer = setInterval(() => {
        void this.tick();
      }, intervalMs);
      this.timer.unref();
    }
  }

  /**
   * Stops ticking and waits for the runs in progress, at most `graceMs` of
   * real time (an HTTP action may hang for its whole timeout); a run still
   * going is closed as interrupted at the next start.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
  }

  /** Fires what is due now; one tick at a time. Resolves once the due instants are claimed and their runs started. */
  tick(): Promise<void> {
    const next = this.ticking.then(() => this.fireDue());
    this.ticking = next.then(
      () => {
        this.failing = false;
      },
      (err) => {
        if (!this.failing) this.deps.warn('schedule tick failed (logged once until a tick succeeds)', err);
        this.failing = true;
      },
    );
    return this.ticking;
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((r) => r.run));
  }

  /** The schedules whose run is in progress, each as "'name' (id ...)" (or its id alone when it has no name). */
  inProgress(): string[] {
    return [...this.running.values()].map((r) => r.what);
  }

  private async fireDue(): Promise<void> {
    if (this.stopped) return;
    const session = this.deps.session();
    const now = this.deps.now();
    // One schedule that cannot fire (a record an admin broke by a raw write) does not hold up the others.
    const failures: unknown[] = [];
    for (const schedule of await this.deps.schedules.store.list(session)) {
      if (!isDue(schedule, now)) continue;
      await this.fire(session, schedule, schedule.next_run as string, now).catch((err) => failures.push(err));
    }
    if (failures.length > 0) throw failures[0];
  }

  /** Claims `instant` of `schedule`, then runs its action, or records it skipped when a run of it is still going. */
  private async fire(session: Session, schedule: Doc, instant: string, now: number): Promise<void> {
    const claimed = await this.deps.schedules.claim(session, schedule.id, instant, now);
    if (!claimed) return;
    if (this.running.has(schedule.id)) {
      await this.deps.schedules.skipRun(session, schedule.id, instant, 'the previous run was still in progress');
      this.deps.ran?.('skipped');
      return;
    }
    const run = this.run(session, claimed, instant).finally(() => this.running.delete(schedule.id));
    const what = typeof schedule.name === 'string' ? `'${schedule.name}' (id ${schedule.id})` : `id ${schedule.id}`;
    this.running.set(schedule.id, { run, what });
  }

  private async run(session: Session, schedule: Doc, instant: string): Promise<void> {
    const { schedules } = this.deps;
    try {
      const record = await schedules.startRun(session, schedule.id, instant);
      let outcome: { outcome: 'success' | 'failure'; error?: string; result?: unknown };
      try {
        outcome = await this.perform(actionOf(schedule));
      } catch (err) {
        outcome = { outcome: 'failure', error: err instanceof Error ? err.message : String(err) };
      }
      await schedules.endRun(session, record, outcome.outcome, outcome);
      this.deps.ran?.(outcome.outcome);
    } catch (err) {
      this.deps.warn(`schedule '${schedule.id}': its run could not be recorded`, err);
    }
  }

  private async perform(
    action: ScheduleAction,
  ): Promise<{ outcome: 'success' | 'failure'; error?: string; result?: unknown }> {
    if (action.type === 'function') {
      const called = await this.deps.callFunction(action.label, action.parameters);
      // A Return step with an error status is a failed run.
      const status = called.returned?.statusCode;
      const result = {
        record_count: called.records.length,
        ...(status !== undefined ? { returned_status: status } : {}),
      };
      return status !== undefined && status >= 400
        ? { outcome: 'failure', error: `The function returned status ${status}`, result }
        : { outcome: 'success', result };
    }
    const request = {
      method: action.method,
      headers: action.headers,
      ...(action.body !== undefined ? { body: action.body } : {}),
    };
    const response = await outboundFetch(action.url, request, this.deps.outbound());
    const result = { status: response.status, body: response.body.toString('utf8').slice(0, MAX_RESULT_TEXT) };
    return response.status < 400
      ? { outcome: 'success', result }
      : { outcome: 'failure', error: `HTTP ${response.status}`, result };
  }

  /** At start: the instants that passed while the server was down, per each schedule's `missed_runs`. */
  private async catchUp(): Promise<void> {
    const session = this.deps.session();
    const now = this.deps.now();
    const { schedules } = this.deps;
    await schedules
      .endInterrupted(session)
      .catch((err) => this.deps.warn('schedule runs interrupted by the last stop could not be closed', err));
    for (const schedule of await schedules.store.list(session)) {
      if (!isDue(schedule, now)) continue;
      const { id } = schedule;
      try {
        // The latest missed instant: the last cron time at or before now (next_run itself when only one was missed).
        const latest = lastInstantAtOrBefore(schedule, schedule.next_run as string, now);
        if (missedRunPolicy(schedule) === 'run_once') {
          if (latest !== schedule.next_run)
            await schedules.store.change(session, id, (current) => ({ ...current, next_run: latest }));
          await this.fire(session, { ...schedule, next_run: latest }, latest, now);
        } else {
          await schedules.store.change(session, id, (current) => ({
            ...current,
            last_run: latest,
            next_run: nextRunAfter(current, now),
          }));
          await schedules.skipRun(session, id, latest, 'missed while the server was down (missed_runs: skip)');
          this.deps.ran?.('skipped');
        }
      } catch (err) {
        this.deps.warn(`schedule '${id}': its missed runs could not be settled`, err);
      }
    }
  }
}

/** An active schedule whose `next_run` is not after `now` (a `next_run` that does not parse counts as due). */
function isDue(schedule: Doc, now: number): boolean {
  return (
    schedule.status === 'active' && typeof schedule.next_run === 'string' && !(Date.parse(schedule.next_run) > now)
  );
}

/**
 * The last cron instant of `schedule` from `first` up to `now` (`first`
 * itself when none is later; a bisection, however long the server was down).
 */
function lastInstantAtOrBefore(schedule: Doc, first: string, now: number): string {
  const last = cronOf(schedule).latestBetween(Date.parse(first), now);
  return last === undefined ? first : new Date(last).toISOString();
}
