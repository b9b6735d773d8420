/**
 * The address a request comes from, as the failed-login limit counts it:
 * the socket's remote address. `X-Forwarded-For` is believed only when the
 * server is told it sits behind a proxy (`trustProxy`), and then only its
 * last entry, the address the nearest proxy saw: earlier entries are written
 * by the client and could be anything.
 *
 * `throttleKey` is what the limit counts an address under: IPv4 addresses
 * one by one (an IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, as its IPv4,
 * which is how a dual-stack socket reports an IPv4 client), IPv6 addresses
 * by their /64, because one subscriber is commonly given a whole /64 and
 * could otherwise try 2^64 addresses of its own.
 */
import ipaddr from 'ipaddr.js';

/** Longest address kept; longer forwarded values are cut (an IPv6 address with a zone fits easily). */
const MAX_ADDRESS_CHARS = 64;

/**
 * The client address of a request. `remoteAddress` is the socket's peer;
 * `forwardedFor` the raw `X-Forwarded-For` header(s). Returns 'unknown' when
 * nothing names an address (a socket already closed).
 */
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy && forwardedFor !== undefined) {
    const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
    const last = joined
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last) return last.slice(0, MAX_ADDRESS_CHARS);
  }
  return remoteAddress ?? 'unknown';
}

/**
 * The key the failed-exchange limit counts `address` under: the IPv4
 * address (mapped IPv6 included) in dotted decimal, `<first 64 bits>::/64`
 * for IPv6 (zone dropped), anything that does not parse as written.
 */
export function throttleKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/**
 * True for a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6):
 * a client on this machine, for which compressing an answer spends CPU on
 * both sides and saves no bandwidth.
 */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}
