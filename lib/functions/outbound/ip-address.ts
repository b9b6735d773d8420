/**
 * IP addresses as bytes, and which ones an outbound request may not reach
 * by default: loopback, private, link-local (the cloud metadata service at
 * 169.254.169.254 included), unspecified, carrier-grade NAT, multicast and
 * reserved ranges, in IPv4 and IPv6. An IPv6 address that carries an IPv4
 * one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`) is judged by the IPv4 address inside, so no spelling
 * reaches 127.0.0.1 around the rule.
 */
import { isIP } from 'node:net';

/** 4 bytes (IPv4) or 16 bytes (IPv6). */
export type IpBytes = readonly number[];

/** The bytes of an IP literal (brackets around IPv6 tolerated), undefined when it is not one. */
export function parseIp(text: string): IpBytes | undefined {
  const s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const kind = isIP(s);
  if (kind === 4) return s.split('.').map(Number);
  if (kind === 6) return parseIpv6(s);
  return undefined;
}

function parseIpv6(s: string): IpBytes | undefined {
  if (s.includes('%')) return undefined; // a zone id names an interface: never a destination we accept
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = text.slice(lastColon + 1).split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = groups(halves[0]!);
  const rest = halves.length > 1 ? groups(halves[1]!) : [];
  const words = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? bytes : undefined;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), else undefined. */
export function embeddedIpv4(b: IpBytes): IpBytes | undefined {
  if (b.length !== 16) return undefined;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12); // ::ffff:a.b.c.d
  if (zeros(0, 12) && !zeros(12, 16)) return b.slice(12); // ::a.b.c.d (deprecated "compatible"), not :: or ::1
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return b.slice(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 2002:aabb:ccdd::/16
  return undefined;
}

/** A network: the first bytes of an address and a prefix length in bits. */
export interface Cidr { readonly bytes: IpBytes; readonly prefix: number }

/** Parses `10.0.0.0/8`, `fc00::/7` or a bare address (a host: the full prefix). Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const bytes = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!bytes) return undefined;
  const bits = bytes.length * 8;
  if (slash < 0) return { bytes, prefix: bits };
  const p = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return undefined;
  return { bytes, prefix: Number(p) };
}

export function inCidr(address: IpBytes, net: Cidr): boolean {
  if (address.length !== net.bytes.length) {
    const v4 = embeddedIpv4(address);
    return v4 !== undefined && net.bytes.length === 4 && inCidr(v4, net);
  }
  let bits = net.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((address[i]! & mask) !== (net.bytes[i]! & mask)) return false;
  }
  return true;
}

const cidrs = (list: string[]): Cidr[] => list.map((c) => parseCidr(c)!);

/** IPv4 ranges denied by default (RFC 6890 special-purpose, minus the globally reachable ones). */
const DENIED_V4 = cidrs([
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24',
  '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
]);

/** IPv6 ranges denied by default; the ones carrying IPv4 are judged by that address instead. */
const DENIED_V6 = cidrs([
  '::/128', '::1/128', '100::/64', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
]);

/** True when an address is loopback, private, link-local or otherwise not a public destination. */
export function isNonPublicAddress(b: IpBytes): boolean {
  if (b.length === 4) return DENIED_V4.some((n) => inCidr(b, n));
  const v4 = embeddedIpv4(b);
  if (v4) return isNonPublicAddress(v4);
  return DENIED_V6.some((n) => inCidr(b, n));
}
