/**
 * The address a request comes from, as the failed-login limit counts it:
 * the socket's remote address. `X-Forwarded-For` is believed only when the
 * server is told it sits behind a proxy (`trustProxy`), and then only its
 * last entry, the address the nearest proxy saw: earlier entries are written
 * by the client and could be anything.
 */

/** Longest address kept; longer forwarded values are cut (an IPv6 address with a zone fits easily). */
const MAX_ADDRESS_CHARS = 64;

/**
 * The client address of a request. `remoteAddress` is the socket's peer;
 * `forwardedFor` the raw `X-Forwarded-For` header(s). Returns 'unknown' when
 * nothing names an address (a socket already closed).
 */
export function clientAddress(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor !== undefined) {
    const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
    const last = joined.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last) return last.slice(0, MAX_ADDRESS_CHARS);
  }
  return remoteAddress ?? 'unknown';
}
