/**
 * Stored-function calls by label: a counter by outcome and a duration
 * histogram, told by StoredFunctions as each call ends (by id, label or
 * routed path alike; a call is labelled with the function's label, never
 * its id). Labels are bounded by the stored functions, and capped: past
 * MAX_FUNCTION_LABELS distinct labels, the calls of a new one count under
 * OTHER_FUNCTIONS.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { FunctionCallObserver } from '../../functions/index.js';

export const MAX_FUNCTION_LABELS = 100;
/** The label of the calls past the cap (a function itself labelled so would share its series). */
export const OTHER_FUNCTIONS = '(other)';

const FUNCTION_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One label's children, made once. */
interface FunctionSeries {
  readonly success: Counter.Internal;
  readonly error: Counter.Internal;
  readonly seconds: Histogram.Internal<'function'>;
}

export class FunctionMetrics implements FunctionCallObserver {
  private readonly calls: Counter<'function' | 'outcome'>;
  private readonly duration: Histogram<'function'>;
  private readonly byLabel = new Map<string, FunctionSeries>();

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'eddydb_function_calls_total',
      help: `Stored-function calls by function label and outcome (success or error); past ${MAX_FUNCTION_LABELS} labels, "${OTHER_FUNCTIONS}".`,
      labelNames: ['function', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'eddydb_function_duration_seconds',
      help: 'Time of each stored-function call, by function label.',
      labelNames: ['function'],
      buckets: FUNCTION_SECONDS_BUCKETS,
      registers: [registry],
    });
  }

  called(label: string, seconds: number, failed: boolean): void {
    const series = this.byLabel.get(label) ?? this.add(label);
    (failed ? series.error : series.success).inc();
    series.seconds.observe(seconds);
  }

  private add(label: string): FunctionSeries {
    const name = this.byLabel.size < MAX_FUNCTION_LABELS ? label : OTHER_FUNCTIONS;
    const existing = this.byLabel.get(name);
    if (existing) return existing;
    const series: FunctionSeries = {
      success: this.calls.labels({ function: name, outcome: 'success' }),
      error: this.calls.labels({ function: name, outcome: 'error' }),
      seconds: this.duration.labels({ function: name }),
    };
    this.byLabel.set(name, series);
    return series;
  }
}
