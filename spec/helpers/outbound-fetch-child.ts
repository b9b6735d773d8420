/**
 * Runs outboundFetch calls, one after the other, in a process of its own
 * and prints each outcome as one JSON line: `{status, body, url}` or
 * `{error, status, message}`. For tests that need the process's
 * environment to differ (NODE_EXTRA_CA_CERTS to trust a test
 * certificate), which node reads only at start.
 *
 *   node --import tsx outbound-fetch-child.ts '[{"url": ..., "request": {...}, "allowHosts": [...]}, ...]'
 */
import {
  hostPolicy,
  NO_PROXY_CONFIG,
  outboundFetch,
  closeOutboundPools,
  type OutboundRequest,
} from '../../lib/outbound/index.js';
import type { DbError } from '../../lib/errors.js';

interface Job {
  url: string;
  request: OutboundRequest;
  allowHosts: string[];
}

for (const job of JSON.parse(process.argv[2]!) as Job[]) {
  try {
    const r = await outboundFetch(job.url, job.request, {
      hosts: hostPolicy(job.allowHosts, false),
      proxy: NO_PROXY_CONFIG,
    });
    console.log(JSON.stringify({ status: r.status, body: r.body.toString(), url: r.url }));
  } catch (err) {
    console.log(
      JSON.stringify({
        error: (err as Error).constructor.name,
        status: (err as DbError).status,
        message: (err as Error).message,
      }),
    );
  }
}
await closeOutboundPools();
