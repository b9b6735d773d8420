/**
 * Schedule runs by outcome (success, failure, skipped), told by the
 * Scheduler as it records each run: a run whose action ended, or an
 * instant skipped (the previous run still going, or missed while the server
 * was down).
 */
import { Counter, type Registry } from 'prom-client';
import type { ScheduleOutcome } from '../../workflow/index.js';

export class ScheduleMetrics {
  private readonly runs: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.runs = new Counter({
      name: 'eddydb_schedule_runs_total',
      help: 'Schedule runs recorded, by outcome (success, failure or skipped).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['success', 'failure', 'skipped'] as const) this.runs.inc({ outcome }, 0);
  }

  ran(outcome: ScheduleOutcome): void {
    this.runs.inc({ outcome });
  }
}
