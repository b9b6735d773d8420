/**
 * `GET /metrics` (admin): the server's Prometheus metrics in the text
 * exposition format (lib/http/metrics). A Prometheus that cannot send a
 * token scrapes the metrics port instead (`--metrics-port`), which serves
 * the same text without one.
 */
import Type from 'typebox';
import { defineProcedure } from '../procedure.js';
import { FileAnswer } from '../../wire/file-answer.js';
import { METRICS_CONTENT_TYPE } from '../../metrics/index.js';

export const metricsScrape = defineProcedure({
  name: 'metrics.scrape',
  kind: 'query',
  access: 'admin',
  input: () => undefined,
  handler: async (_i, ctx) =>
    new FileAnswer(once(Buffer.from(await ctx.metrics.scrape(), 'utf8')), {}, METRICS_CONTENT_TYPE),
  schema: {
    summary: 'Prometheus metrics of this server and its process',
    description:
      'The Prometheus text exposition format (version 0.0.4): requests by route pattern, method and status, ' +
      'log and snapshot latency, write queue, collections, ripples, WebSocket connections, functions, LLM ' +
      'providers, schedules, and the process (docs/operations.md, Metrics). Needs an admin token; the metrics ' +
      'port, when configured, serves it without one.',
    response: Type.String({ description: 'The exposition text.' }),
    media: METRICS_CONTENT_TYPE,
  },
});

async function* once(chunk: Buffer): AsyncIterable<Buffer> {
  yield chunk;
}
