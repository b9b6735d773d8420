/**
 * Outbound HTTP for function steps and providers: the host policy
 * (private, loopback and link-local destinations denied unless allowed),
 * the standard proxy variables, bounded redirects, body size and time.
 */
export {
  outboundFetch, parseOutboundUrl, checkRequestHeaders, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS,
  type OutboundPolicy, type OutboundRequest, type OutboundResponse,
} from './outbound-fetch.js';
export { checkHost, checkResolved, hostPolicy, normalizeHost, OutboundDenied, DENY_ALL_PRIVATE, type HostPolicy } from './host-policy.js';
export { embeddedIpv4, inCidr, isNonPublicAddress, parseCidr, parseIp, type Cidr, type IpBytes } from './ip-address.js';
export { NO_PROXY_CONFIG, proxyFor, proxyFromEnv, type ProxyConfig } from './proxy-config.js';
export { closeOutboundPools, dispatcherFor, guardedLookup } from './dispatchers.js';
export { outboundPolicy } from './policy.js';
export { checkAddress, checkRecipients, MAX_RECIPIENTS, sendSendgrid, sendSmtp, type MailMessage, type MailResult, type SmtpConfig } from './mail/index.js';
