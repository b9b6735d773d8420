/**
 * HTTP requests by route pattern, method and status: a counter and a
 * latency histogram, told by the Dispatcher of every answer it makes.
 *
 * Labels stay bounded: the route is the pattern from the route table
 * (`/api/find/:collection/:id`, never a path with its ids), one value
 * stands for every path no route serves, a method outside the usual ones is
 * `OTHER`, and statuses are the few the server answers with. Each
 * route, method and status finds its series through three map lookups and
 * creates it once, so counting a request allocates nothing.
 */
import { Counter, type Registry } from 'prom-client';
import { RecordedHistogram, type HistogramSeries } from './recorded-histogram.js';

/** The route label of a request that no route matched (an unknown path). */
export const UNMATCHED_ROUTE = '(unmatched)';
/** The method label of a method outside KNOWN_METHODS. */
export const OTHER_METHOD = 'OTHER';
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** From half a millisecond (a point read) to ten seconds (a long query, a large batch). */
export const REQUEST_SECONDS_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

/** One route, method and status: the answers counted and the latency of those timed. */
interface RequestSeries {
  answers: number;
  readonly latency: HistogramSeries;
}

export class RequestMetrics {
  /** Route -> method -> status -> series. */
  private readonly byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  private readonly all: RequestSeries[] = [];
  private readonly latency: RecordedHistogram;

  constructor(registry: Registry) {
    this.latency = new RecordedHistogram(
      'eddydb_http_request_duration_seconds',
      'Time from the request reaching the dispatcher to its answer (an SSE stream: to its opening), by route ' +
        'pattern, method and status.',
      REQUEST_SECONDS_BUCKETS,
      registry,
    );
    const all = this.all;
    new Counter({
      name: 'eddydb_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status (WebSocket upgrades included).',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const series of all) this.inc(series.latency.labels, series.answers);
      },
    });
  }

  /**
   * An answer made: `route` is the matched pattern (undefined when none matched), `startedAt` the
   * performance.now() at which the request arrived (undefined: counted, not timed).
   */
  answered(method: string, route: string | undefined, status: number, startedAt: number | undefined): void {
    const series = this.find(route ?? UNMATCHED_ROUTE, method, status);
    series.answers += 1;
    if (startedAt !== undefined) series.latency.observe((performance.now() - startedAt) / 1000);
  }

  private find(route: string, method: string, status: number): RequestSeries {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) {
      // An unusual method shares OTHER's series, and is not kept as a key of its own.
      if (!KNOWN_METHODS.has(method)) method = OTHER_METHOD;
      byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { answers: 0, latency: this.latency.series({ route, method, status: String(status) }) };
      byStatus.set(status, series);
      this.all.push(series);
    }
    return series;
  }
}
