/**
 * undici dispatchers (connection pools) for outbound requests, one per
 * policy, lookup and proxy, reused across calls. A direct pool resolves
 * names through `guardedLookup` (host-lookup.ts), so the host policy judges
 * the very addresses the socket connects to (no DNS-rebinding window
 * between a check and the connect). A proxy pool connects to the proxy
 * only: the proxy resolves names (outboundFetch judges them first, with
 * `checkBeforeProxy`), and the configured proxy itself is never blocked.
 * Plain-http targets go to the proxy as absolute-URI requests, https ones
 * through CONNECT, as proxies expect.
 */
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { HostPolicy } from './host-policy.js';
import { guardedLookup, systemLookup, type HostLookup } from './host-lookup.js';

/** Pools kept; the oldest is closed (gracefully: requests in flight finish) past this many. */
const MAX_POOLS = 8;
const pools = new Map<string, Dispatcher>();
/** Lookups are functions: each gets a number for the pool key. */
const lookupIds = new WeakMap<HostLookup, number>();
let nextLookupId = 0;

function lookupId(lookup: HostLookup): number {
  let id = lookupIds.get(lookup);
  if (id === undefined) {
    id = nextLookupId++;
    lookupIds.set(lookup, id);
  }
  return id;
}

/** The pool for direct requests under `policy` resolving through `lookup`, or for requests through `proxy`. */
export function dispatcherFor(
  policy: HostPolicy,
  proxy: string | undefined,
  lookup: HostLookup = systemLookup,
): Dispatcher {
  const key = proxy === undefined ? `direct ${lookupId(lookup)} ${policy.key}` : `proxy ${proxy}`;
  const found = pools.get(key);
  if (found) return found;
  const made =
    proxy === undefined
      ? new Agent({ connect: { lookup: guardedLookup(policy, lookup) } })
      : new ProxyAgent({ uri: proxy, proxyTunnel: false });
  pools.set(key, made);
  if (pools.size > MAX_POOLS) {
    const [oldKey, old] = pools.entries().next().value as [string, Dispatcher];
    pools.delete(oldKey);
    void old.close().catch(() => undefined);
  }
  return made;
}

/** Closes every pool (tests, shutdown). */
export async function closeOutboundPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((d) => d.close().catch(() => undefined)));
}
