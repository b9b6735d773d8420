/**
 * `outboundFetch`: one HTTP request out of the server, for function steps
 * (HttpRequest, SWR, EmailSend's SendGrid provider) and schedules (the chat
 * providers stream through the same dispatchers). The host policy is checked on the URL, then on the addresses
 * the name resolves to: at connect time for a direct connection, before the
 * request for one through a proxy (host-lookup.ts says what that check
 * guarantees). Redirects are followed by hand (at most `maxRedirects`,
 * redirects.ts: methods, headers across origins, no https to http), each
 * hop checked again; the whole exchange, body included, has one deadline;
 * the body is read as a stream and the request aborted once it passes
 * `maxBytes`.
 *
 * A non-2xx answer is an answer. Failures are typed: OutboundDenied (400)
 * for a refused destination, InvalidInput for a bad URL or header, Timeout
 * (504) past the deadline, UpstreamFailed (502) for network failures, an
 * oversized body or too many redirects. Messages name the host only, never
 * the path or query (they may carry keys).
 */
import { request, type Dispatcher } from 'undici';
import { InvalidInput, Timeout, UpstreamFailed } from '../errors.js';
import { dispatcherFor } from './dispatchers.js';
import { checkHost, OutboundDenied, type HostPolicy } from './host-policy.js';
import { checkBeforeProxy, systemLookup, type HostLookup } from './host-lookup.js';
import { proxyFor, type ProxyConfig } from './proxy-config.js';
import { redirectedRequest, REDIRECT_STATUSES, type HopRequest } from './redirects.js';

export interface OutboundPolicy {
  readonly hosts: HostPolicy;
  readonly proxy: ProxyConfig;
  /** How names are resolved for the policy's checks; dns.lookup when absent. */
  readonly lookup?: HostLookup;
}

export interface OutboundRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The whole exchange, redirects and body included. Default 30 s. */
  readonly timeoutMs?: number;
  /** Largest response body read. Default 10 MiB. */
  readonly maxBytes?: number;
  /** Default 5; 0 returns a redirect as the answer. */
  readonly maxRedirects?: number;
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Headers the transport owns; a caller setting them could smuggle or confuse the connection. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** A redirect's body read (and dropped) so its connection can be reused; larger ones close it. */
const REDIRECT_BODY_BYTES = 64 * 1024;

/** Parses and checks an outbound URL: http or https only, no credentials in it. */
export function parseOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput('Outbound URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidInput(`Outbound URL scheme '${url.protocol.slice(0, -1)}' is not allowed (http or https only)`);
  if (url.username || url.password)
    throw new InvalidInput('Outbound URL must not carry credentials (send an Authorization header)');
  return url;
}

/** Validates request headers; returns a fresh object with lower-case names. */
export function checkRequestHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name))
      throw new InvalidInput(`Outbound header name '${name.slice(0, 64)}' is not a valid HTTP token`);
    if (TRANSPORT_HEADERS.has(lower))
      throw new InvalidInput(`Outbound header '${lower}' is set by the server, not the function`);
    if (typeof value !== 'string' || BAD_VALUE.test(value))
      throw new InvalidInput(`Outbound header '${lower}' must be a string without control characters`);
    out[lower] = value;
  }
  return out;
}

export async function outboundFetch(
  rawUrl: string,
  req: OutboundRequest,
  policy: OutboundPolicy,
): Promise<OutboundResponse> {
  let url = parseOutboundUrl(rawUrl);
  const method = (req.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method))
    throw new InvalidInput(`Outbound method '${method.slice(0, 16)}' is not one of ${[...METHODS].join(', ')}`);
  const headers = checkRequestHeaders(req.headers);
  if (!('user-agent' in headers)) headers['user-agent'] = 'EddyDB';
  let hopRequest: HopRequest = { method, headers, ...(req.body !== undefined ? { body: req.body } : {}) };
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = req.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    for (let hop = 0; ; hop++) {
      const res = await send(url, hopRequest, policy, abort.signal, timeoutMs);
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(res.statusCode) && typeof location === 'string' && maxRedirects > 0) {
        await res.body.dump({ limit: REDIRECT_BODY_BYTES }).catch(() => undefined);
        if (hop >= maxRedirects)
          throw new UpstreamFailed(`Outbound request to '${url.hostname}' redirected more than ${maxRedirects} times`);
        const next = parseOutboundUrl(new URL(location, url).href);
        hopRequest = redirectedRequest(res.statusCode, url, next, hopRequest);
        url = next;
        continue;
      }
      const bytes = await readBounded(res, maxBytes, url);
      return { status: res.statusCode, headers: flatHeaders(res.headers), body: bytes, url: url.href };
    }
  } catch (err) {
    throw classify(err, url, abort.signal.aborted, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

async function send(
  url: URL,
  hop: HopRequest,
  policy: OutboundPolicy,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Dispatcher.ResponseData> {
  const lookup = policy.lookup ?? systemLookup;
  const proxy = proxyFor(url, policy.proxy);
  // Direct: the URL's host here, its addresses in the connect hook. Proxied: both here, the proxy connects.
  if (proxy === undefined) checkHost(policy.hosts, url.hostname);
  else await checkBeforeProxy(policy.hosts, url.hostname, lookup, signal);
  const { method, headers, body } = hop;
  return request(url, {
    method: method as Dispatcher.HttpMethod,
    headers,
    signal,
    ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    dispatcher: dispatcherFor(policy.hosts, proxy, lookup),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

async function readBounded(res: Dispatcher.ResponseData, maxBytes: number, url: URL): Promise<Buffer> {
  const tooLarge = () =>
    new UpstreamFailed(`Outbound response from '${url.hostname}' is larger than ${maxBytes} bytes`);
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(res);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      discard(res);
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** Drops a response mid-body (its connection is closed, not reused). */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

function flatHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || name === '__proto__' || name === 'constructor' || name === 'prototype') continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The typed failure for anything thrown while sending or reading. */
function classify(err: unknown, url: URL, aborted: boolean, timeoutMs: number): Error {
  const denied = findDenied(err);
  if (denied) return denied;
  if (err instanceof InvalidInput || err instanceof UpstreamFailed) return err;
  const code = (err as { code?: string }).code;
  if (
    aborted ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new Timeout(`Outbound request to '${url.hostname}' timed out after ${timeoutMs} ms`);
  }
  if (code === 'UND_ERR_INVALID_ARG')
    return new InvalidInput(`Outbound request to '${url.hostname}' is malformed: ${(err as Error).message}`);
  const reason = code ?? (err instanceof Error ? err.message : String(err));
  return new UpstreamFailed(`Outbound request to '${url.hostname}' failed: ${reason}`, { cause: err });
}

/** The policy refusal behind an error (undici wraps a lookup's error as the socket error, or as its cause). */
function findDenied(err: unknown): OutboundDenied | undefined {
  for (let cause = err, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof OutboundDenied) return cause;
  }
  return undefined;
}
