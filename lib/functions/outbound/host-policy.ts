/**
 * Where outbound requests may go. Non-public addresses (ip-address.ts) and
 * names that mean this machine (`localhost`, `*.localhost`) are denied
 * unless the allow-list names them (`outbound_allow_hosts`: host names,
 * `*.suffix` wildcards, IP addresses or CIDR ranges) or
 * `outbound_allow_private` opens them all. Public destinations are always
 * allowed. Checked twice: the URL's host before the request, and each
 * address a name resolves to at connect time (dispatchers.ts), so a name
 * that resolves to 127.0.0.1 (or rebinds to it later) is refused too.
 */
import { InvalidInput } from '../../errors.js';
import { inCidr, isNonPublicAddress, parseCidr, parseIp, type Cidr, type IpBytes } from './ip-address.js';

/** A destination the policy refused: a 400, the function's URL is the caller's to fix. */
export class OutboundDenied extends InvalidInput {}

export interface HostPolicy {
  /** Every non-public address allowed (`outbound_allow_private`). */
  readonly allowPrivate: boolean;
  /** Exact host names allowed, lower case. */
  readonly names: ReadonlySet<string>;
  /** `*.example.internal` entries, as `.example.internal`. */
  readonly suffixes: readonly string[];
  readonly networks: readonly Cidr[];
  /** Equal for equal policies: keys the connection pools (dispatchers.ts). */
  readonly key: string;
}

/** A policy from the settings' list; entries that are neither a name nor an address match nothing. */
export function hostPolicy(allowHosts: readonly string[], allowPrivate: boolean): HostPolicy {
  const names = new Set<string>();
  const suffixes: string[] = [];
  const networks: Cidr[] = [];
  for (const raw of allowHosts) {
    const entry = raw.trim().toLowerCase();
    const net = parseCidr(entry);
    if (net) networks.push(net);
    else if (entry.startsWith('*.') && entry.length > 2) suffixes.push(entry.slice(1));
    else if (entry !== '') names.add(entry.replace(/\.$/, ''));
  }
  const key = JSON.stringify([allowPrivate, [...names].sort(), [...suffixes].sort(), networks.map((n) => `${n.bytes.join('.')}/${n.prefix}`).sort()]);
  return { allowPrivate, names, suffixes, networks, key };
}

export const DENY_ALL_PRIVATE: HostPolicy = hostPolicy([], false);

/** The URL's host as the policy compares it: lower case, no trailing dot, IPv6 without brackets. */
export function normalizeHost(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function nameAllowed(policy: HostPolicy, host: string): boolean {
  return policy.names.has(host) || policy.suffixes.some((s) => host.endsWith(s));
}

function addressAllowed(policy: HostPolicy, address: IpBytes): boolean {
  return policy.allowPrivate || !isNonPublicAddress(address) || policy.networks.some((n) => inCidr(address, n));
}

const LOCAL_NAMES = /(^|\.)localhost$|(^|\.)localhost\.localdomain$/;

/**
 * Checks a URL's host before any connection: a literal address by its
 * value, a name by whether it means this machine. Throws OutboundDenied.
 * Names are checked again by address when they resolve (checkResolved).
 */
export function checkHost(policy: HostPolicy, rawHost: string): void {
  const host = normalizeHost(rawHost);
  const ip = parseIp(host);
  if (ip) {
    if (!addressAllowed(policy, ip)) throw denied(host);
    return;
  }
  if (LOCAL_NAMES.test(host) && !policy.allowPrivate && !nameAllowed(policy, host)) throw denied(host);
}

/**
 * Keeps the addresses a name resolved to that the policy allows; a name on
 * the allow-list keeps them all (its owner chose it). Throws
 * OutboundDenied when none is left.
 */
export function checkResolved(policy: HostPolicy, rawHost: string, addresses: readonly string[]): string[] {
  const host = normalizeHost(rawHost);
  if (nameAllowed(policy, host)) return [...addresses];
  const kept = addresses.filter((a) => {
    const ip = parseIp(a);
    return ip !== undefined && addressAllowed(policy, ip);
  });
  if (kept.length === 0) throw denied(host, addresses[0]);
  return kept;
}

function denied(host: string, address?: string): OutboundDenied {
  const where = address && address !== host ? `'${host}' (${address})` : `'${host}'`;
  return new OutboundDenied(`Outbound request to ${where} denied: private, loopback and link-local addresses need outbound_allow_hosts or outbound_allow_private`);
}
