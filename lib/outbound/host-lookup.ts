/**
 * Name resolution under the host policy. A direct connection resolves
 * through `guardedLookup`, the `lookup` hook of net.connect: the policy
 * judges the very addresses the socket connects to, so a name that
 * resolves, or rebinds, to a denied address never gets a connection.
 *
 * A request through a proxy is judged before it is sent
 * (`checkBeforeProxy`): the name is resolved here and every address must
 * be allowed. That is a check, not a pin: the proxy resolves the name
 * again, on its own resolver. It stops a name that points at a private or
 * link-local address (169.254.169.254 behind a DNS name); it cannot stop a
 * name whose answers change between the two lookups (rebinding with a short
 * TTL) or that the proxy's resolver answers differently (split horizon).
 * Only the proxy can refuse those, so a proxy that reaches private networks
 * should deny them itself. A name that does not resolve here fails closed:
 * the policy cannot judge it (allow-list it by name where only the proxy
 * can resolve names).
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { checkEveryResolved, checkHost, checkResolved, needsResolution, type HostPolicy } from './host-policy.js';

/** Resolves a name to all its addresses, as dns.lookup with `all: true`; specs give their own. */
export type HostLookup = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

export const systemLookup: HostLookup = (hostname, options) => dns.lookup(hostname, { ...options, all: true });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that keeps only the addresses the policy allows (and fails when none is left). */
export function guardedLookup(policy: HostPolicy, lookup: HostLookup = systemLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, options).then(
      (addresses) => {
        let entries: LookupAddress[];
        try {
          const kept = checkResolved(policy, hostname, resolvedOrThrow(hostname, addresses));
          entries = addresses.filter((a) => kept.includes(a.address));
        } catch (err) {
          callback(err as NodeJS.ErrnoException, []);
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/**
 * Judges a request to `rawHost` that a proxy will carry: the URL's host
 * (checkHost), then, unless the policy allows whatever it resolves to,
 * every address the name resolves to here. Throws OutboundDenied, the
 * lookup's error (ENOTFOUND...), or the signal's reason once it aborts.
 */
export async function checkBeforeProxy(
  policy: HostPolicy,
  rawHost: string,
  lookup: HostLookup,
  signal: AbortSignal,
): Promise<void> {
  checkHost(policy, rawHost);
  if (!needsResolution(policy, rawHost)) return;
  const addresses = await untilAborted(lookup(rawHost, {}), signal);
  checkEveryResolved(policy, rawHost, resolvedOrThrow(rawHost, addresses));
}

/** The addresses' texts; an empty answer is the lookup failure dns.lookup would have given. */
function resolvedOrThrow(hostname: string, addresses: readonly LookupAddress[]): string[] {
  if (addresses.length === 0)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  return addresses.map((a) => a.address);
}

/** dns.lookup cannot be cancelled; the request stops waiting for it when the deadline aborts. */
function untilAborted<T>(pending: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
