/**
 * Label values stay bounded whatever the traffic: an unusual method counts
 * as OTHER, collections past the largest hundred add up under `(other)`,
 * and function labels past the first hundred share `(other)`.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { RequestMetrics } from '../../../lib/http/metrics/request-metrics.js';
import {
  collectionSizes,
  MAX_COLLECTION_LABELS,
  OTHER_COLLECTIONS,
  type StorageSource,
} from '../../../lib/http/metrics/storage-metrics.js';
import { FunctionMetrics, MAX_FUNCTION_LABELS, OTHER_FUNCTIONS } from '../../../lib/http/metrics/function-metrics.js';
import { parsePrometheusText, valueOf } from '../../helpers/prometheus-text.js';

const read = async (registry: Registry) => parsePrometheusText(await registry.metrics());

describe('http/metrics: bounded labels', () => {
  it('counts every unusual method as OTHER, keeping no series of its own', async () => {
    const registry = new Registry();
    const requests = new RequestMetrics(registry);
    for (let i = 0; i < 50; i++) requests.answered(`BREW${i}`, '/api/health', 405, performance.now());
    requests.answered('GET', undefined, 404, undefined);
    const families = await read(registry);
    expect(families.get('eddydb_http_requests_total')!.samples).to.have.length(2);
    const other = { route: '/api/health', method: 'OTHER', status: '405' };
    expect(valueOf(families, 'eddydb_http_requests_total', other)).to.equal(50);
    expect(valueOf(families, 'eddydb_http_request_duration_seconds_count', other)).to.equal(50);
    // Counted, not timed: refused before the dispatcher saw it.
    const untimed = { route: '(unmatched)', method: 'GET', status: '404' };
    expect(valueOf(families, 'eddydb_http_requests_total', untimed)).to.equal(1);
    expect(valueOf(families, 'eddydb_http_request_duration_seconds_count', untimed)).to.equal(0);
  });

  it('names the largest collections and adds up the records of the rest under (other)', () => {
    const collections = new Map<string, { records: { size: number } }>();
    for (let i = 0; i < MAX_COLLECTION_LABELS + 20; i++) collections.set(`c${i}`, { records: { size: i } });
    const source: StorageSource = { memory: false, queue: { depth: 0 }, state: { collections }, now: () => 0 };
    const sizes = new Map(collectionSizes(source));
    expect(sizes.size).to.equal(MAX_COLLECTION_LABELS + 1);
    expect(sizes.get(`c${MAX_COLLECTION_LABELS + 19}`)).to.equal(MAX_COLLECTION_LABELS + 19);
    expect(sizes.has('c0')).to.equal(false);
    expect(sizes.get(OTHER_COLLECTIONS)).to.equal(((19 - 0) * 20) / 2);
  });

  it('labels calls with the first hundred function labels and the rest as (other)', async () => {
    const registry = new Registry();
    const functions = new FunctionMetrics(registry);
    for (let i = 0; i < MAX_FUNCTION_LABELS + 30; i++) functions.called(`fn${i}`, 0.001, false);
    functions.called('fn0', 0.001, true);
    const families = await read(registry);
    const labels = new Set(families.get('eddydb_function_calls_total')!.samples.map((s) => s.labels.function));
    expect(labels.size).to.equal(MAX_FUNCTION_LABELS + 1);
    expect(
      valueOf(families, 'eddydb_function_calls_total', { function: OTHER_FUNCTIONS, outcome: 'success' }),
    ).to.equal(30);
    expect(valueOf(families, 'eddydb_function_calls_total', { function: 'fn0', outcome: 'error' })).to.equal(1);
  });
});
