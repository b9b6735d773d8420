/**
 * A histogram for the hot paths (one observation per request, per log
 * append): each label combination is a `HistogramSeries` the caller finds
 * once and keeps, and an observation is a bucket search and three
 * additions on plain numbers, with no label object built and no hash
 * computed. prom-client's own children cost close to a microsecond per
 * request (a label hash and two objects per observation), which is several
 * per cent of a point read.
 *
 * The histogram is registered in a prom-client Registry as a collector: at
 * scrape time the registry asks it for its values, in the shape its own
 * histograms give (`_bucket` per bound and `+Inf`, `_sum`, `_count`), and
 * renders them with everything else.
 */
import type { Metric, Registry } from 'prom-client';

/** One label combination's observations. */
export class HistogramSeries {
  count = 0;
  sum = 0;
  /** Observations per bucket, not cumulative; the last slot holds those above every bound. */
  readonly counts: Float64Array;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let at = 0;
    while (at < bounds.length && value > bounds[at]!) at++;
    this.counts[at] = this.counts[at]! + 1;
    this.count += 1;
    this.sum += value;
  }
}

/** A value as prom-client's registry renders it: labels, value, and the sample's name when not the metric's. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export class RecordedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: HistogramSeries[] = [];

  /** `bounds`: the buckets' upper bounds, ascending. Registers itself in `registry`. */
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series with these labels; the caller keeps it (asking twice for the same labels makes two series). */
  series(labels: Readonly<Record<string, string>> = {}): HistogramSeries {
    const series = new HistogramSeries(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  /** What the registry reads at scrape time. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...series.labels }, value: cumulative, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: bucket });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every observation (the registry's resetMetrics). */
  reset(): void {
    for (const series of this.all) {
      series.count = 0;
      series.sum = 0;
      series.counts.fill(0);
    }
  }
}
