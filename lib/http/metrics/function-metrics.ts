/**
 * Stored-function calls by label: a counter by outcome and a duration
 * histogram, told by StoredFunctions as each call ends (by id, label or
 * routed path alike; a call is labelled with the function's label, never
 * its id). Labels are bounded by the stored functions, and capped: past
 * MAX_FUNCTION_LABELS distinct labels, the calls of a new one count under
 * OTHER_FUNCTIONS.
 */
import { Counter, type Registry } from 'prom-client';
import type { FunctionCallObserver } from '../../functions/index.js';
import { RecordedHistogram, type HistogramSeries } from './recorded-histogram.js';

export const MAX_FUNCTION_LABELS = 100;
/** The label of the calls past the cap (a function itself labelled so would share its series). */
export const OTHER_FUNCTIONS = '(other)';

const FUNCTION_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One label's calls, made once: counted and timed on plain numbers (a call of a one-step function takes ~25 µs). */
interface FunctionSeries {
  readonly function: string;
  success: number;
  error: number;
  readonly seconds: HistogramSeries;
}

export class FunctionMetrics implements FunctionCallObserver {
  private readonly duration: RecordedHistogram;
  private readonly byLabel = new Map<string, FunctionSeries>();

  constructor(registry: Registry) {
    this.duration = new RecordedHistogram(
      'eddydb_function_duration_seconds',
      'Time of each stored-function call, by function label.',
      FUNCTION_SECONDS_BUCKETS,
      registry,
    );
    const byLabel = this.byLabel;
    new Counter({
      name: 'eddydb_function_calls_total',
      help: `Stored-function calls by function label and outcome (success or error); past ${MAX_FUNCTION_LABELS} labels, "${OTHER_FUNCTIONS}".`,
      labelNames: ['function', 'outcome'],
      registers: [registry],
      collect() {
        this.reset();
        for (const series of byLabel.values()) {
          this.inc({ function: series.function, outcome: 'success' }, series.success);
          this.inc({ function: series.function, outcome: 'error' }, series.error);
        }
      },
    });
  }

  called(label: string, seconds: number, failed: boolean): void {
    const series = this.byLabel.get(label) ?? this.add(label);
    if (failed) series.error += 1;
    else series.success += 1;
    series.seconds.observe(seconds);
  }

  private add(label: string): FunctionSeries {
    const name = this.byLabel.size < MAX_FUNCTION_LABELS ? label : OTHER_FUNCTIONS;
    const existing = this.byLabel.get(name);
    if (existing) return existing;
    const series: FunctionSeries = {
      function: name,
      success: 0,
      error: 0,
      seconds: this.duration.series({ function: name }),
    };
    this.byLabel.set(name, series);
    return series;
  }
}
