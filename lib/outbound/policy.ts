/**
 * The outbound policy in force: the host allow-list from the settings
 * (`outbound_allow_hosts`, `outbound_allow_private`; PUT /api/config or
 * EDDYDB_OUTBOUND_ALLOW_HOSTS / EDDYDB_OUTBOUND_ALLOW_PRIVATE at start) and
 * the proxy from the process environment, read per request so a changed
 * setting applies to the next call.
 */
import { hostPolicy, type HostPolicy } from './host-policy.js';
import type { OutboundPolicy } from './outbound-fetch.js';
import { proxyFromEnv } from './proxy-config.js';

/** The two settings the policy reads (the engine's Settings has them). */
export interface PolicySettings {
  readonly outbound_allow_hosts: readonly string[];
  readonly outbound_allow_private: boolean;
}

/** Settings objects are frozen and replaced on change, so their host policy is computed once. */
const byList = new WeakMap<object, HostPolicy>();

export function outboundPolicy(settings: PolicySettings, env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  let hosts = byList.get(settings);
  if (!hosts) {
    hosts = hostPolicy(settings.outbound_allow_hosts, settings.outbound_allow_private);
    byList.set(settings, hosts);
  }
  return { hosts, proxy: proxyFromEnv(env) };
}
