/**
 * Where outbound requests may go. Non-public addresses (ip-address.ts) and
 * names that mean this machine (`localhost`, `*.localhost`) are denied
 * unless the allow-list names them (`outbound_allow_hosts`: host names,
 * `*.suffix` wildcards, IP addresses or CIDR ranges) or
 * `outbound_allow_private` opens them all. Public destinations are always
 * allowed. Checked twice: the URL's host before the request, then the
 * addresses a name resolves to (host-lookup.ts): at connect time for a
 * direct connection, before the request for one through a proxy. Pure:
 * the lookups are the caller's.
 */
import { InvalidInput } from '../errors.js';
import {
  addressRange,
  formatCidr,
  inCidr,
  parseCidr,
  parseIp,
  PUBLIC_RANGE,
  type Cidr,
  type IpAddress,
} from './ip-address.js';

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
  const key = JSON.stringify([allowPrivate, [...names].sort(), [...suffixes].sort(), networks.map(formatCidr).sort()]);
  return { allowPrivate, names, suffixes, networks, key };
}

export const DENY_ALL_PRIVATE: HostPolicy = hostPolicy([], false);

/** The URL's host as the policy compares it: lower case, no trailing dot, IPv6 without brackets. */
export function normalizeHost(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, '');
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

function nameAllowed(policy: HostPolicy, host: string): boolean {
  return policy.names.has(host) || policy.suffixes.some((s) => host.endsWith(s));
}

/** Undefined when the policy allows the address, else the range that denies it. */
function deniedRange(policy: HostPolicy, address: IpAddress): string | undefined {
  if (policy.allowPrivate) return undefined;
  const range = addressRange(address);
  if (range === PUBLIC_RANGE || policy.networks.some((n) => inCidr(address, n))) return undefined;
  return range;
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
    const range = deniedRange(policy, ip);
    if (range !== undefined) throw denied(host, host, range);
    return;
  }
  if (LOCAL_NAMES.test(host) && !policy.allowPrivate && !nameAllowed(policy, host)) throw denied(host);
}

/**
 * True when the addresses `rawHost` resolves to could be denied, so a
 * request through a proxy must resolve it first: false for an address
 * literal (checkHost judged it), an allow-listed name and a policy that
 * allows every address.
 */
export function needsResolution(policy: HostPolicy, rawHost: string): boolean {
  const host = normalizeHost(rawHost);
  return !policy.allowPrivate && parseIp(host) === undefined && !nameAllowed(policy, host);
}

/**
 * Keeps the addresses a name resolved to that the policy allows; a name on
 * the allow-list keeps them all (its owner chose it). Throws
 * OutboundDenied when none is left.
 */
export function checkResolved(policy: HostPolicy, rawHost: string, addresses: readonly string[]): string[] {
  const host = normalizeHost(rawHost);
  if (nameAllowed(policy, host)) return [...addresses];
  const kept = addresses.filter((a) => addressVerdict(policy, a) === undefined);
  if (kept.length === 0)
    throw denied(host, addresses[0], addresses[0] === undefined ? undefined : addressVerdict(policy, addresses[0]));
  return kept;
}

/**
 * Requires every address a name resolved to to be allowed (a name on the
 * allow-list passes as it is). For requests through a proxy, which picks
 * among the addresses itself: one denied address denies the request.
 * Throws OutboundDenied naming the first denied address.
 */
export function checkEveryResolved(policy: HostPolicy, rawHost: string, addresses: readonly string[]): void {
  const host = normalizeHost(rawHost);
  if (nameAllowed(policy, host)) return;
  for (const address of addresses) {
    const range = addressVerdict(policy, address);
    if (range !== undefined) throw denied(host, address, range);
  }
}

/** Undefined when allowed, else the denying range (`unparsable` for a text that is no address). */
function addressVerdict(policy: HostPolicy, address: string): string | undefined {
  const ip = parseIp(address);
  return ip === undefined ? 'unparsable' : deniedRange(policy, ip);
}

function denied(host: string, address?: string, range?: string): OutboundDenied {
  const where = address && address !== host ? `'${host}' (${address})` : `'${host}'`;
  const why = range === undefined ? 'a name of this machine' : `${range} range`;
  return new OutboundDenied(
    `Outbound request to ${where} denied (${why}): non-public addresses need outbound_allow_hosts or ` +
      `outbound_allow_private`,
  );
}
