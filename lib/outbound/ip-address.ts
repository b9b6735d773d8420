/**
 * IP addresses (ipaddr.js values) and which ones an outbound request may
 * reach by default: public unicast only. ipaddr.js names the
 * special-purpose ranges (loopback, private, link-local with the cloud
 * metadata service at 169.254.169.254, carrier-grade NAT, benchmarking,
 * documentation, multicast, broadcast, unique- and site-local, Teredo,
 * 6to4, NAT64, ORCHID, discard-only...), and every range it names is
 * denied. Two IPv6 forms carry an IPv4 address and are judged by it:
 * IPv4-mapped `::ffff:0:0/96` (what a dual-stack socket shows for an IPv4
 * peer) and the NAT64 well-known prefix `64:ff9b::/96` (what DNS64
 * synthesizes for every IPv4-only name on an IPv6-only network; RFC 6052
 * section 3.1 keeps non-global IPv4 out of it, and judging the carried
 * address holds it to that). The few IPv6 forms ipaddr.js calls unicast
 * but that are not destinations are listed below with their RFC.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
/** A network: its first address and a prefix length in bits. */
export type Cidr = readonly [IpAddress, number];

/** The range name of a public destination. */
export const PUBLIC_RANGE = 'unicast';

/**
 * An IP literal (brackets around IPv6 tolerated, a zone id ignored),
 * undefined when it is not one. Only node's standard spellings count:
 * ipaddr.js alone would also read inet_aton's `127.1` and `0x7f.1`, which
 * a URL has already normalized and a setting must not mean. IPv6 goes
 * through the URL parser's hexadecimal form first because ipaddr.js reads
 * `::a.b.c.d` as IPv4-mapped, while the socket (RFC 4291) takes it as
 * IPv4-compatible `::a.b.c.d`, the form glibc prints for such an address.
 */
export function parseIp(text: string): IpAddress | undefined {
  const literal = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(literal);
  if (family === 0) return undefined;
  try {
    return ipaddr.parse(family === 6 ? new URL(`http://[${literal.split('%')[0]}]`).hostname.slice(1, -1) : literal);
  } catch {
    return undefined;
  }
}

/** Parses `10.0.0.0/8`, `fc00::/7` or a bare address (a host: the full prefix). Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!address) return undefined;
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  if (slash < 0) return [address, bits];
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
  return [address, Number(prefix)];
}

/** `10.0.0.0/8`, `fc00::/7`: the key and message form of a network. */
export function formatCidr([address, prefix]: Cidr): string {
  return `${address.toString()}/${prefix}`;
}

const cidr = (text: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(text);

/** RFC 4291 section 2.5.5.2: IPv4-mapped, judged by the IPv4 address. */
const IPV4_MAPPED = cidr('::ffff:0:0/96');
/**
 * RFC 6052 section 2.1: the NAT64 well-known prefix, judged by the IPv4 address (the local-use 64:ff9b:1::/48 of RFC
 * 8215 is denied).
 */
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');

/** The IPv4 address an IPv6 address stands for (mapped or NAT64 well-known), else undefined. */
export function carriedIpv4(address: IpAddress): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as ipaddr.IPv6;
  if (!v6.match(IPV4_MAPPED) && !v6.match(NAT64_WELL_KNOWN)) return undefined;
  const bytes = v6.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
}

/** IPv6 ranges ipaddr.js calls unicast that are not destinations. */
const UNNAMED_V6_RANGES: Parameters<typeof ipaddr.subnetMatch>[1] = {
  // RFC 4291 section 2.5.5.1: IPv4-compatible `::a.b.c.d`, deprecated; stacks
  // that still read it send to the IPv4 address inside (`::7f00:1` is loopback).
  ipv4Compatible: [cidr('::/96')],
};
/**
 * RFC 4291 section 2.4 and the IANA IPv6 Address Space registry: global
 * unicast is allocated from 2000::/3 only; the rest (outside the ranges
 * named above) is reserved by the IETF, so nothing public answers there.
 */
const GLOBAL_UNICAST_V6 = cidr('2000::/3');

/**
 * The range an address falls in: `unicast` (PUBLIC_RANGE) for a public
 * destination, else the range's name (ipaddr.js's, `ipv4Compatible` or
 * `reservedByIetf`). An address that carries an IPv4 one gets that one's.
 */
export function addressRange(address: IpAddress): string {
  const v4 = address.kind() === 'ipv4' ? (address as ipaddr.IPv4) : carriedIpv4(address);
  if (v4) return v4.range();
  const v6 = address as ipaddr.IPv6;
  const named = v6.range();
  if (named !== PUBLIC_RANGE) return named;
  const unnamed = ipaddr.subnetMatch(v6, UNNAMED_V6_RANGES, PUBLIC_RANGE);
  if (unnamed !== PUBLIC_RANGE) return unnamed;
  return v6.match(GLOBAL_UNICAST_V6) ? PUBLIC_RANGE : 'reservedByIetf';
}

/** True when an address is a public unicast destination. */
export function isPublicAddress(address: IpAddress): boolean {
  return addressRange(address) === PUBLIC_RANGE;
}

/**
 * True when `address` is inside `net`. An address carrying an IPv4 one
 * (mapped, NAT64) also matches IPv4 networks by it, as it is judged by it;
 * an IPv4-mapped network (`::ffff:10.0.0.0/104`) is the IPv4 network it maps.
 */
export function inCidr(address: IpAddress, net: Cidr): boolean {
  let [base, prefix] = net;
  if (base.kind() === 'ipv6' && prefix >= 96 && (base as ipaddr.IPv6).match(IPV4_MAPPED)) {
    base = (base as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const matches = (a: IpAddress) => a.kind() === base.kind() && a.match(base, prefix);
  const v4 = carriedIpv4(address);
  return matches(address) || (v4 !== undefined && matches(v4));
}
