/** Prometheus metrics (prom-client): one registry per server, its families, and the metrics port. */
export { meteredProviders } from './chat-metrics.js';
export type { RequestMetrics } from './request-metrics.js';
export { METRICS_CONTENT_TYPE, ServerMetrics, type MetricsSources } from './server-metrics.js';
