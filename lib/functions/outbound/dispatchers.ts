/**
 * undici dispatchers (connection pools) for outbound requests, one per
 * policy and proxy, reused across calls. A direct pool resolves names
 * through `guardedLookup`, so the host policy judges the very addresses the
 * socket connects to (no DNS-rebinding window between a check and the
 * connect). A proxy pool connects to the proxy only: the proxy resolves
 * names, and the configured proxy itself is never blocked. Plain-http
 * targets go to the proxy as absolute-URI requests, https ones through
 * CONNECT, as proxies expect.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { checkResolved, type HostPolicy } from './host-policy.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that keeps only the addresses the policy allows (and fails when none is left). */
export function guardedLookup(policy: HostPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) { callback(err, []); return; }
      let kept: string[];
      try {
        kept = checkResolved(policy, hostname, addresses.map((a) => a.address));
      } catch (denied) {
        callback(denied as NodeJS.ErrnoException, []);
        return;
      }
      const entries = addresses.filter((a) => kept.includes(a.address));
      if (options.all) callback(null, entries);
      else callback(null, entries[0]!.address, entries[0]!.family);
    });
  };
}

/** Pools kept; the oldest is closed (gracefully: requests in flight finish) past this many. */
const MAX_POOLS = 8;
const pools = new Map<string, Dispatcher>();

/** The pool for direct requests under `policy`, or for requests through `proxy`. */
export function dispatcherFor(policy: HostPolicy, proxy: string | undefined): Dispatcher {
  const key = proxy === undefined ? `direct ${policy.key}` : `proxy ${proxy}`;
  const found = pools.get(key);
  if (found) return found;
  const made = proxy === undefined
    ? new Agent({ connect: { lookup: guardedLookup(policy) } })
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
