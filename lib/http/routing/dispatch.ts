/**
 * Transport-agnostic request handling: route, authenticate, rate-limit,
 * decode, call the procedure, encode. The fastify server and the express
 * adapter are both thin shells around `Dispatcher.handle`, so they behave
 * identically. A route naming a stream procedure (GET /api/subscribe/{c})
 * is answered with an open stream instead of a body, which the transport
 * hands to transport/sse.ts; the WebSocket transport opens streams with
 * `openStream`. Every error answer, from here or from a transport, is built
 * and logged by `failure` (log/request-log.ts), so 5xx are always logged with
 * their cause and URLs never carry secrets into the log. With the access log
 * on, every answer also gets its access line (log/access-log.ts); with it off
 * the hot path pays one boolean test.
 */
import { newRequestId, requestIdOf } from './request-id.js';
import { DbError, MethodNotAllowed, PayloadTooLarge } from '../../errors.js';
import { yieldSlicedWork } from '../../engine/index.js';
import {
  callProcedure,
  recheckAccess,
  scopeOf,
  WithStatus,
  type RawInput,
  type Registry,
  type StreamEvent,
} from '../procedures/procedure.js';
import { Router } from './router.js';
import { ROUTES, type RouteTarget } from './routes.js';
import { decodeBody, decodeLargeBody, encodeBody, toJson } from '../wire/codec.js';
import { renderError } from '../wire/error-body.js';
import { RecordList } from '../wire/record-list.js';
import type { PackedAnswer } from '../wire/wire-record.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { RequestsInFlight } from './requests-in-flight.js';
import { firstOf, requestArgs, pathOf, rateHeaders } from './request-parts.js';
import { clientAddress, isLoopback } from '../auth/client-address.js';
import { hasRawHeader, readHeaderObject, readRawHeaders, type ReadHeaders } from './request-headers.js';
import { readAfter, SEQ_HEADER } from './read-after.js';
import { logFailedRequest, type RequestSummary } from '../log/request-log.js';
import { logAccess } from '../log/access-log.js';
import type { ServerLog } from '../log/server-log.js';
import type { CredentialWatch } from '../auth/credential-watch.js';
import type { RequestMetrics } from '../metrics/index.js';
import type { Context, Principal, Services } from '../procedures/context.js';

export interface HttpRequest {
  readonly method: string;
  /** Raw path and query, still percent-encoded. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body?: Buffer;
  /** The socket's remote address; the client address unless `trustProxy` says to read X-Forwarded-For. */
  readonly remoteAddress?: string;
  /**
   * Node's raw name/value list, to refuse conflicting repeats that `headers` hides (request-headers.ts);
   * when given, the headers the Dispatcher reads come from it (`headers` is then only read on failure paths).
   */
  readonly rawHeaders?: readonly string[];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Bytes, or text sent as UTF-8 (a JSON answer); its length in bytes is `Buffer.byteLength(body)`. */
  body: Buffer | string;
  /** A record's MessagePack answer whose bytes are `body`: a transport that writes text may send its latin1 text. */
  packed?: PackedAnswer;
  /**
   * A long answer's body in chunks, which the transport writes with back-pressure (transport/streamed-body.ts); `body`
   * is empty.
   */
  chunks?: AsyncIterable<Buffer | string>;
  /** Set for a stream procedure: the transport writes the head, then the events (transport/sse.ts); `body` is empty. */
  stream?: OpenStream;
  /** The stream's SSE framing (routes.ts `sse`). */
  sse?: 'event' | 'data';
}

/** A stream procedure's open stream, as any transport serves it. */
export interface OpenStream {
  readonly events: AsyncIterable<StreamEvent>;
  readonly principal: Principal;
  /** Fires once the stream is cancelled. */
  readonly signal: AbortSignal;
  /** The collection it reads, if any (log lines). */
  readonly collection: string | undefined;
  /** Ends the stream: the procedure's `ctx.signal` fires and its events end. Idempotent. */
  cancel(): void;
  /** Throws when `principal` (the caller's changed key) may not run this stream. */
  recheck(principal: Principal): void;
}

/** One request's answer in the making: its id, the headers gathered so far, its route once matched. */
interface Turn {
  readonly requestId: string;
  readonly headers: Record<string, string>;
  readonly startedAt: number | undefined;
  route: string | undefined;
}

/** A routed request: what proceed() and encoded() read. */
interface Call {
  readonly req: HttpRequest;
  readonly target: RouteTarget;
  readonly headers: ReadHeaders;
  readonly args: Record<string, string | string[]>;
  readonly streaming: boolean;
}

/** Shared by single answers: nothing cancels them. */
const NEVER = new AbortController().signal;
const EMPTY = Buffer.alloc(0);
/** Bodies from this size on take milliseconds to decode. */
const LARGE_BODY_BYTES = 256 * 1024;
/**
 * The body limit of a request that needs no token (the token exchange,
 * health, a path no route serves): its body is read before anyone is known,
 * so it stays small, and a larger one is refused before it is read or
 * decoded. The token exchange's body, `{api_key}`, is well under 1 KiB; 64
 * KiB leaves room for any client's framing.
 */
export const PUBLIC_BODY_LIMIT_BYTES = 64 * 1024;

export class Dispatcher {
  private readonly router = new Router<RouteTarget>(ROUTES);
  private readonly limiter = new RateLimiter();
  /** Answers that take more than one turn, for what must wait for them (a checkpoint restored). */
  readonly inFlight = new RequestsInFlight();
  /** How the streaming transports (SSE, WebSocket) keep their streams; set by the server. */
  streams: { watch: CredentialWatch; heartbeatMs: number; maxQueuedBytes: number } | undefined;
  /** Told of every answer made here or through failure(): route pattern, method, status, latency; set by the server. */
  requestMetrics: RequestMetrics | undefined;

  /**
   * `trustProxy`: believe the last X-Forwarded-For entry as the client address (client-address.ts).
   * `accessLog`: log one line per answered request (log/access-log.ts), and 4xx failures at info instead of debug.
   */
  constructor(
    private readonly services: Services,
    private readonly registry: Registry,
    readonly bodyLimit: number,
    private readonly trustProxy = false,
    readonly accessLog = false,
  ) {
    this.publicBodyLimit = Math.min(PUBLIC_BODY_LIMIT_BYTES, bodyLimit);
  }

  /** The body limit of requests that need no token (PUBLIC_BODY_LIMIT_BYTES, or `bodyLimit` when smaller). */
  readonly publicBodyLimit: number;

  /** Requests and WebSocket messages taken so far (idle compaction reads it to know the server is quiet). */
  requests = 0;

  /** The server's logger, for transports that log events of their own (a slow consumer dropped). */
  get log(): ServerLog {
    return this.services.log;
  }

  /** Answers `req`; never rejects (every failure is an error answer). */
  handle(req: HttpRequest): Promise<HttpResponse> {
    const out = this.respond(req);
    return out instanceof Promise ? out : Promise.resolve(out);
  }

  /**
   * handle(), answering synchronously when nothing on the way waits (a
   * cached token and a synchronous procedure: a read), so the common read
   * makes no promise and takes no turn of the microtask queue.
   */
  respond(req: HttpRequest): HttpResponse | Promise<HttpResponse> {
    const out = this.answer(req);
    return out instanceof Promise ? this.inFlight.track(`${req.method} ${pathOf(req.url)}`, out) : out;
  }

  /** Forgets every key's request count in the current rate window (a checkpoint restored). */
  clearRateWindows(): void {
    this.limiter.clear();
  }

  private answer(req: HttpRequest): HttpResponse | Promise<HttpResponse> {
    this.requests++;
    const turn: Turn = {
      requestId: requestIdOf(req),
      headers: {},
      startedAt: this.accessLog || this.requestMetrics ? performance.now() : undefined,
      route: undefined,
    };
    turn.headers['X-Request-Id'] = turn.requestId;
    try {
      // Checked first, as the transports check it before reading the body, so every transport answers alike.
      if (req.body && req.body.length > this.publicBodyLimit) {
        const limit = this.bodyLimitFor(req.method, req.url, hasAuthorization(req));
        if (req.body.length > limit) throw this.tooLarge(limit);
      }
      const headers = req.rawHeaders ? readRawHeaders(req.rawHeaders) : readHeaderObject(req.headers);
      if (headers.minSeq !== undefined && this.services.cluster) {
        const wait = readAfter(this.services.cluster, headers.minSeq);
        if (wait) return wait.then(() => this.routed(turn, req, headers)).catch((err) => this.failed(err, turn, req));
      }
      return this.routed(turn, req, headers);
    } catch (err) {
      return this.failed(err, turn, req);
    }
  }

  /** answer(), once the headers are read (and a cluster node has applied what the request asked for). */
  private routed(turn: Turn, req: HttpRequest, headers: ReadHeaders): HttpResponse | Promise<HttpResponse> {
    try {
      const qAt = req.url.indexOf('?');
      const path = qAt < 0 ? req.url : req.url.slice(0, qAt);
      const { target, params, route } = this.router.match(req.method, path);
      turn.route = route;
      const proc = this.registry.get(target.procedure);
      const streaming = proc?.kind === 'stream';
      // Subscriptions are GET; chat streams (framed as data lines) are POSTed with a JSON body.
      if (streaming && req.method !== 'GET' && target.sse !== 'data') throw new MethodNotAllowed('Method Not Allowed');
      const args = requestArgs(qAt < 0 ? '' : req.url.slice(qAt + 1), params);
      const call: Call = { req, target, headers, args, streaming };
      // A stream always has a caller: its credentials are watched for its whole life.
      if (!proc || (proc.access === 'public' && !streaming)) {
        if (!proc?.optionalCaller || !headers.authorization) return this.proceed(turn, call, undefined);
        return this.services.tokens
          .authenticate(headers.authorization)
          .then(
            (p) => p,
            () => undefined,
          )
          .then((p) => this.proceed(turn, call, p))
          .catch((err: unknown) => this.failed(err, turn, req));
      }
      const principal = this.services.tokens.cached(headers.authorization);
      if (principal) return this.proceed(turn, call, principal);
      // Streams also take the token as a query parameter: EventSource cannot send headers.
      return this.services.tokens
        .authenticate(headers.authorization, streaming ? firstOf(args.token) : undefined)
        .then((p) => this.proceed(turn, call, p))
        .catch((err: unknown) => this.failed(err, turn, req));
    } catch (err) {
      return this.failed(err, turn, req);
    }
  }

  /**
   * The most body bytes a request to `method` and `url` (raw path and
   * query) may carry: `bodyLimit` on a route that needs a token,
   * `publicBodyLimit` on one that needs none, on a path no route serves
   * (its answer needs no body), and on a route that needs a token when the
   * request carries no Authorization header (`authorized` false: its answer
   * is a 401). Transports check it before reading a body, against the
   * Content-Length and the bytes as they arrive.
   */
  bodyLimitFor(method: string, url: string, authorized = true): number {
    if (this.publicBodyLimit >= this.bodyLimit) return this.bodyLimit;
    const qAt = url.indexOf('?');
    let target: RouteTarget;
    try {
      target = this.router.match(method, qAt < 0 ? url : url.slice(0, qAt)).target;
    } catch (err) {
      // Not found, wrong method, undecodable path: answered without the body.
      if (err instanceof DbError) return this.publicBodyLimit;
      throw err;
    }
    const proc = this.registry.get(target.procedure);
    // As respond() decides: a stream always has a caller, a public procedure needs none.
    const needsToken = proc !== undefined && (proc.access !== 'public' || proc.kind === 'stream');
    return needsToken && authorized ? this.bodyLimit : this.publicBodyLimit;
  }

  /** The 413 answering a body over `limit` (a value of bodyLimitFor). */
  tooLarge(limit: number): PayloadTooLarge {
    const which = limit < this.bodyLimit ? ', the limit of a request without a token' : '';
    return new PayloadTooLarge(`Request body exceeds ${limit} bytes${which}`);
  }

  /** The rest of respond() once the caller is known; a failure here is answered by the caller of this. */
  private proceed(turn: Turn, call: Call, principal: Principal | undefined): HttpResponse | Promise<HttpResponse> {
    const { req, headers } = call;
    if (principal) {
      const rate = this.limit(principal);
      if (rate) Object.assign(turn.headers, rateHeaders(rate));
    }
    const forwardedFor = this.trustProxy ? headers.forwardedFor : undefined;
    const address = clientAddress(req.remoteAddress, forwardedFor, this.trustProxy);
    // A large body decodes over two turns of the event loop (codec.ts), and its procedure (parsing, permissions,
    // the first slice of a batch) starts in a third: one large request does not hold the loop while it decodes.
    if (req.body && req.body.length >= LARGE_BODY_BYTES) {
      return decodeLargeBody(req.body, headers.contentType)
        .then(async (body) => {
          await yieldSlicedWork();
          return this.run(turn, call, principal, { args: call.args, body }, address);
        })
        .catch((err: unknown) => this.failed(err, turn, req));
    }
    // An empty body is `{}` whatever its Content-Type says (codec.ts).
    const body = req.body && req.body.length > 0 ? decodeBody(req.body, headers.contentType) : {};
    return this.run(turn, call, principal, { args: call.args, body }, address);
  }

  /**
   * Opens the stream, or calls the procedure and encodes its answer; a failure here is answered by the caller of this.
   */
  private run(
    turn: Turn,
    call: Call,
    principal: Principal | undefined,
    raw: RawInput,
    address: string,
  ): HttpResponse | Promise<HttpResponse> {
    const { req, target } = call;
    if (call.streaming && principal) {
      return this.open(target.procedure, raw, principal, turn.requestId, address)
        .then((stream): HttpResponse => {
          this.requestMetrics?.answered(req.method, turn.route, 200, turn.startedAt);
          if (this.accessLog)
            logAccess(this.services.log, {
              method: req.method,
              route: turn.route,
              url: req.url,
              status: 200,
              startedAt: turn.startedAt,
              requestId: turn.requestId,
              bytesOut: 0,
            });
          return { status: 200, headers: turn.headers, body: EMPTY, stream, sse: target.sse ?? 'event' };
        })
        .catch((err: unknown) => this.failed(err, turn, req));
    }
    const ctx = this.context(principal, turn.requestId, address);
    const result = callProcedure(this.registry, target.procedure, raw, ctx);
    if (result instanceof Promise)
      return result
        .then((r) => this.encoded(turn, call, r, address))
        .catch((err: unknown) => this.failed(err, turn, req));
    return this.encoded(turn, call, result, address);
  }

  /**
   * A procedure's result as the answer: status, Content-Type and Content-Encoding as the client asked, except that a
   * client on this machine is answered uncompressed (isLoopback says why; a proxy here forwards its clients' address).
   */
  private encoded(turn: Turn, call: Call, result: unknown, address: string): HttpResponse {
    const { req, target, headers } = call;
    let status = target.status ?? 200;
    if (result instanceof WithStatus) ({ status, body: result } = { status: result.status, body: result.body });
    // Clients read non-2xx bodies as text (protocol.md 1.4 rule 3), so those stay JSON.
    const accept = status >= 300 ? 'application/json' : headers.accept;
    const enc = encodeBody(result ?? {}, accept, isLoopback(address) ? undefined : headers.acceptEncoding);
    turn.headers['Content-Type'] = enc.contentType;
    if (this.services.cluster) turn.headers[SEQ_HEADER] = String(this.services.cluster.appliedSeq);
    if (enc.gzip) turn.headers['Content-Encoding'] = 'gzip';
    this.requestMetrics?.answered(req.method, turn.route, status, turn.startedAt);
    if (enc.headers) Object.assign(turn.headers, enc.headers);
    if (this.accessLog) {
      logAccess(this.services.log, {
        method: req.method,
        route: turn.route,
        url: req.url,
        status,
        startedAt: turn.startedAt,
        requestId: turn.requestId,
        bytesOut: Buffer.byteLength(enc.body),
      });
    }
    return enc.chunks
      ? { status, headers: turn.headers, body: EMPTY, chunks: enc.chunks }
      : { status, headers: turn.headers, body: enc.body, packed: enc.packed };
  }

  private failed(err: unknown, turn: Turn, req: HttpRequest): HttpResponse {
    return this.failure(
      err,
      { method: req.method, url: req.url, headers: req.headers, route: turn.route, startedAt: turn.startedAt },
      turn.requestId,
      turn.headers,
    );
  }

  /** Authenticates a bearer header or token parameter (WebSocket upgrade, SSE). 401 on failure. */
  async authenticate(header: string | undefined, token?: string): Promise<Principal> {
    const principal = await this.services.tokens.authenticate(header, token);
    this.limit(principal);
    return principal;
  }

  /**
   * Calls a procedure for a non-HTTP transport, with the same checks; unwraps
   * status results. A stored record stays a WireRecord, for the transport to
   * encode (frame-formats.ts `encodeSuccess`) or unwrap (`unwrapRecord`); a
   * list of records becomes their wire objects, made in slices, unless the
   * caller keeps it (`lists: 'keep'`: the WebSocket transport streams a long one).
   * `requestId` names the call in log lines (a WebSocket message's own).
   */
  async call(
    procedure: string,
    raw: RawInput,
    principal: Principal,
    lists: 'wire' | 'keep' = 'wire',
    requestId = newRequestId(),
  ): Promise<unknown> {
    this.limit(principal);
    const ctx = this.context(principal, requestId);
    const answer = callProcedure(this.registry, procedure, raw, ctx);
    const result = answer instanceof Promise ? await this.inFlight.track(`WebSocket ${procedure}`, answer) : answer;
    if (result instanceof RecordList && lists === 'wire') return result.toWireInSlices();
    return result instanceof WithStatus ? result.body : result;
  }

  /**
   * Opens a stream procedure for a non-HTTP transport (WebSocket Subscribe),
   * with the same checks except the request quota, which a WebSocket
   * Subscribe has never counted against.
   */
  openStream(procedure: string, raw: RawInput, principal: Principal, requestId = newRequestId()): Promise<OpenStream> {
    return this.open(procedure, raw, principal, requestId);
  }

  private async open(
    procedure: string,
    raw: RawInput,
    principal: Principal,
    requestId: string,
    address?: string,
  ): Promise<OpenStream> {
    const controller = new AbortController();
    const ctx = this.context(principal, requestId, address, controller.signal);
    const events = (await callProcedure(this.registry, procedure, raw, ctx, 'stream')) as AsyncIterable<StreamEvent>;
    return {
      events,
      principal,
      signal: controller.signal,
      collection: scopeOf(this.registry, procedure, raw),
      cancel: () => controller.abort(),
      recheck: (p) => recheckAccess(this.registry, procedure, raw, p),
    };
  }

  /** A context with one fixed shape (a spread of the services object per request costs measurable time). */
  private context(
    principal: Principal | undefined,
    requestId: string,
    address?: string,
    signal: AbortSignal = NEVER,
  ): Context {
    const {
      sessions,
      config,
      clock,
      storage,
      health,
      snapshots,
      keys,
      collections,
      trash,
      indexes,
      planner,
      kv,
      transactions,
      audit,
      replication,
      tokens,
      log,
      startedAt,
      batchGate,
      ripples,
      authFailures,
      changes,
      functions,
      chat,
      workflow,
      testing,
      lifecycle,
      metrics,
      version,
      cluster,
    } = this.services;
    return {
      sessions,
      config,
      clock,
      storage,
      health,
      snapshots,
      keys,
      collections,
      trash,
      indexes,
      planner,
      kv,
      transactions,
      audit,
      replication,
      tokens,
      // Lines logged while serving this request name it.
      log: (level, msg, extra) => log(level, msg, extra, requestId),
      startedAt,
      batchGate,
      ripples,
      authFailures,
      changes,
      functions,
      chat,
      workflow,
      testing,
      lifecycle,
      metrics,
      version,
      cluster,
      principal,
      requestId,
      typed: config.settings().use_typed_values,
      clientAddress: address,
      signal,
      // Auto-commit until the gate in callProcedure applies the procedure's scope.
      session: sessions.session(principal),
    };
  }

  private limit(principal: Principal) {
    const settings = this.services.config.settings();
    const quota = principal.key.rate_limit ?? settings.rate_limit_requests;
    // Off by default (quota 0): no clock read.
    if (quota <= 0) return undefined;
    return this.limiter.hit(principal.keyId, quota, settings.rate_limit_window_secs, this.services.clock.now());
  }

  /**
   * The error answer to `req` for any transport (fastify's framework errors,
   * SSE, the WebSocket upgrade use it too), logged as log/request-log.ts says;
   * with the access log on, the access line stands for a 4xx line.
   * `headers` are kept unless the error sets the same ones. Never throws.
   */
  failure(
    err: unknown,
    req: RequestSummary,
    requestId: string = requestIdOf(req),
    headers: Record<string, string> = {},
  ): HttpResponse {
    const rendered = renderError(err, requestId, req.url);
    const body = Buffer.from(toJson(rendered.body), 'utf8');
    this.requestMetrics?.answered(req.method, req.route, rendered.status, req.startedAt);
    if (!this.accessLog || rendered.status >= 500) logFailedRequest(this.services.log, err, requestId, req);
    if (this.accessLog) {
      logAccess(this.services.log, {
        method: req.method,
        route: req.route,
        url: req.url,
        status: rendered.status,
        startedAt: req.startedAt,
        requestId,
        bytesOut: body.length,
        error: err instanceof DbError ? err.code : 'INTERNAL',
      });
    }
    return {
      status: rendered.status,
      headers: {
        'X-Request-Id': requestId,
        ...headers,
        ...rendered.headers,
        'Content-Type': 'application/json; charset=utf-8',
      },
      body,
    };
  }

  /**
   * The access line of an answer a transport wrote itself (a WebSocket
   * upgrade, the start of an SSE stream); nothing when the access log is off.
   */
  logAnswer(req: RequestSummary, status: number, requestId: string = requestIdOf(req), bytesOut = 0): void {
    this.requestMetrics?.answered(req.method, req.route, status, req.startedAt);
    if (this.accessLog)
      logAccess(this.services.log, {
        method: req.method,
        route: req.route,
        url: req.url,
        status,
        startedAt: req.startedAt,
        requestId,
        bytesOut,
      });
  }

  /**
   * Logs an error for transports with their own framing (WebSocket frames, a
   * hijacked SSE reply), which render it with error-body.ts; returns the
   * request id the log names, for the rendered frame.
   */
  report(err: unknown, req: RequestSummary, requestId: string = requestIdOf(req)): string {
    logFailedRequest(this.services.log, err, requestId, req, this.accessLog ? 'info' : 'debug');
    return requestId;
  }
}

/** Whether the request carries an Authorization header at all (from node's raw list when given). */
function hasAuthorization(req: HttpRequest): boolean {
  return req.rawHeaders ? hasRawHeader(req.rawHeaders, 'authorization') : req.headers.authorization !== undefined;
}
