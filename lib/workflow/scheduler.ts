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
}

/** Response text kept in an HTTP run's result. */
const MAX_RESULT_TEXT = 4096;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  /** Schedule id -> its run in progress. */
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  /** Set while ticks keep failing (read-only storage, say): the failure is logged once, not four times a second. */
  private failing = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Settles missed runs, then ticks every `intervalMs` (0: only when `tick()` is called). */
  async start(intervalMs: number): Promise<void> {
    await this.catchUp();
    if (intervalMs > 0 && !this.stopped) {
      this.timer = setInterval(() => { void this.tick(); }, intervalMs);
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
    const grace = new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); });
    await Promise.race([this.idle(), grace]);
    clearTimeout(timer);
  }

  /** Fires what is due now; one tick at a time. Resolves once the due instants are claimed and their runs started. */
  tick(): Promise<void> {
    const next = this.ticking.then(() => this.fireDue());
    this.ticking = next.then(
      () => { this.failing = false; },
      (e) => {
        if (!this.failing) this.deps.warn('schedule tick failed (logged once until a tick succeeds)', e);
        this.failing = true;
      },
    );
    return this.ticking;
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private async fireDue(): Promise<void> {
    if (this.stopped) return;
    const db = this.deps.session();
    const now = this.deps.now();
    // One schedule that cannot fire (a record an admin broke by a raw write) does not hold up the others.
    const failures: unknown[] = [];
    for (const s of await this.deps.schedules.store.list(db)) {
      if (s.status !== 'active' || typeof s.next_run !== 'string' || Date.parse(s.next_run) > now) continue;
      await this.fire(db, s, s.next_run, now).catch((e) => failures.push(e));
    }
    if (failures.length > 0) throw failures[0];
  }

  /** Claims `instant` of `s`, then runs its action, or records it skipped when a run of `s` is still going. */
  private async fire(db: Session, s: Doc, instant: string, now: number): Promise<void> {
    const claimed = await this.deps.schedules.claim(db, s.id, instant, now);
    if (!claimed) return;
    if (this.running.has(s.id)) {
      await this.deps.schedules.skipRun(db, s.id, instant, 'the previous run was still in progress');
      return;
    }
    const run = this.run(db, claimed, instant).finally(() => this.running.delete(s.id));
    this.running.set(s.id, run);
  }

  private async run(db: Session, s: Doc, instant: string): Promise<void> {
    const { schedules } = this.deps;
    try {
      const record = await schedules.startRun(db, s.id, instant);
      let outcome: { outcome: 'success' | 'failure'; error?: string; result?: unknown };
      try {
        outcome = await this.perform(actionOf(s));
      } catch (err) {
        outcome = { outcome: 'failure', error: err instanceof Error ? err.message : String(err) };
      }
      await schedules.endRun(db, record, outcome.outcome, outcome);
    } catch (err) {
      this.deps.warn(`schedule '${s.id}': its run could not be recorded`, err);
    }
  }

  private async perform(action: ScheduleAction): Promise<{ outcome: 'success' | 'failure'; error?: string; result?: unknown }> {
    if (action.type === 'function') {
      const r = await this.deps.callFunction(action.label, action.parameters);
      // A Return step with an error status is a failed run.
      const status = r.returned?.statusCode;
      const result = { record_count: r.records.length, ...(status !== undefined ? { returned_status: status } : {}) };
      return status !== undefined && status >= 400 ? { outcome: 'failure', error: `The function returned status ${status}`, result } : { outcome: 'success', result };
    }
    const res = await outboundFetch(action.url, { method: action.method, headers: action.headers, ...(action.body !== undefined ? { body: action.body } : {}) },
      this.deps.outbound());
    const result = { status: res.status, body: res.body.toString('utf8').slice(0, MAX_RESULT_TEXT) };
    return res.status < 400 ? { outcome: 'success', result } : { outcome: 'failure', error: `HTTP ${res.status}`, result };
  }

  /** At start: the instants that passed while the server was down, per each schedule's `missed_runs`. */
  private async catchUp(): Promise<void> {
    const db = this.deps.session();
    const now = this.deps.now();
    const { schedules } = this.deps;
    await schedules.endInterrupted(db).catch((e) => this.deps.warn('schedule runs interrupted by the last stop could not be closed', e));
    for (const s of await schedules.store.list(db)) {
      if (s.status !== 'active' || typeof s.next_run !== 'string' || Date.parse(s.next_run) > now) continue;
      try {
        // The latest missed instant: the last cron time at or before now (next_run itself when only one was missed).
        const latest = lastInstantAtOrBefore(s, s.next_run, now);
        if (missedRunPolicy(s) === 'run_once') {
          if (latest !== s.next_run) await schedules.store.change(db, s.id, (cur) => ({ ...cur, next_run: latest }));
          await this.fire(db, { ...s, next_run: latest }, latest, now);
        } else {
          await schedules.store.change(db, s.id, (cur) => ({ ...cur, last_run: latest, next_run: nextRunAfter(cur, now) }));
          await schedules.skipRun(db, s.id, latest, 'missed while the server was down (missed_runs: skip)');
        }
      } catch (err) {
        this.deps.warn(`schedule '${s.id}': its missed runs could not be settled`, err);
      }
    }
  }
}

/** The last cron instant of `s` from `first` up to `now` (`first` itself when none is later; a bisection, however long the server was down). */
function lastInstantAtOrBefore(s: Doc, first: string, now: number): string {
  const last = cronOf(s).latestBetween(Date.parse(first), now);
  return last === undefined ? first : new Date(last).toISOString();
}
