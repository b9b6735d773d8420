/**
 * What a followed redirect sends next, as the Fetch standard (undici's
 * fetch) and curl do: 301 and 302 turn a POST into a GET, 303 turns
 * anything but GET and HEAD into a GET, and either drops the body; 307 and
 * 308 resend the same method and body. The headers that describe a body
 * (Content-Type...) go only where a body goes.
 *
 * A redirect to another origin (scheme, host or port) keeps only the
 * headers in CROSS_ORIGIN_HEADERS (and the body's description while the
 * body goes along): Authorization, Cookie and custom headers such as API
 * keys stay with the origin the function named. The Fetch standard drops
 * only Authorization there and undici's redirect handler Authorization,
 * Cookie and Proxy-Authorization; a function's custom headers are often
 * secrets too, so an allow-list is the safe side. A redirect from https to
 * http is refused: the request and its answer would cross the network in
 * clear.
 */
import { OutboundDenied } from './host-policy.js';

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Headers that follow a redirect to another origin: they describe what the client accepts, nothing secret. */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
]);

/** The Fetch standard's request-body-header names: they describe the body and go with it. */
const BODY_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
]);

export interface HopRequest {
  readonly method: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/**
 * The request to send to `to` after `status` redirected `req` away from
 * `from`. Throws OutboundDenied for a redirect from https to http.
 */
export function redirectedRequest(status: number, from: URL, to: URL, req: HopRequest): HopRequest {
  if (from.protocol === 'https:' && to.protocol === 'http:') {
    throw new OutboundDenied(
      `Outbound redirect from https '${from.hostname}' to http '${to.hostname}' refused: the request would go ` +
        `unencrypted`,
    );
  }
  const toGet =
    ((status === 301 || status === 302) && req.method === 'POST') ||
    (status === 303 && req.method !== 'GET' && req.method !== 'HEAD');
  const body = toGet ? undefined : req.body;
  const sameOrigin = from.origin === to.origin;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    const keep = BODY_HEADERS.has(name) ? body !== undefined : sameOrigin || CROSS_ORIGIN_HEADERS.has(name);
    if (keep) headers[name] = value;
  }
  return { method: toGet ? 'GET' : req.method, headers, ...(body !== undefined ? { body } : {}) };
}
