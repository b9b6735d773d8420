/**
 * Every HTTP request leaving the server, for function steps, chat providers
 * and schedules: the host policy (non-public destinations denied unless
 * allowed, directly and through a proxy), the standard proxy variables,
 * bounded redirects that keep credentials on their origin, body size and
 * time. Other folders import only from here.
 */
export {
  outboundFetch,
  parseOutboundUrl,
  checkRequestHeaders,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound-fetch.js';
export {
  checkEveryResolved,
  checkHost,
  checkResolved,
  hostPolicy,
  needsResolution,
  normalizeHost,
  OutboundDenied,
  DENY_ALL_PRIVATE,
  type HostPolicy,
} from './host-policy.js';
export {
  addressRange,
  carriedIpv4,
  formatCidr,
  inCidr,
  isPublicAddress,
  parseCidr,
  parseIp,
  PUBLIC_RANGE,
  type Cidr,
  type IpAddress,
} from './ip-address.js';
export { NO_PROXY_CONFIG, proxyFor, proxyFromEnv, type ProxyConfig } from './proxy-config.js';
export { checkBeforeProxy, guardedLookup, systemLookup, type HostLookup } from './host-lookup.js';
export { CROSS_ORIGIN_HEADERS, REDIRECT_STATUSES, redirectedRequest, type HopRequest } from './redirects.js';
export { closeOutboundPools, dispatcherFor } from './dispatchers.js';
export { outboundPolicy, type PolicySettings } from './policy.js';
