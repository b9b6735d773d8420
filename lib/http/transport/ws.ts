/**
 * The WebSocket transport at /api/ws (protocol.md §3): auth on the upgrade
 * (Authorization header or ?token=), optional Hello answered by a text
 * Welcome that switches the connection to MessagePack, every request answered
 * once with Success/Error, echoing its messageId when it carried one (the raw
 * examples send none), and Subscribe/Unsubscribe feeding MutationNotification
 * and SchemaChanged. Chat types get the replies of `chatReply` until chat lands.
 *
 * A bad frame gets an Error and the connection stays open. A consumer whose
 * send queue passes the cap is told with an Error and then dropped.
 *
 * Credentials are re-checked for the life of the connection (CredentialWatch):
 * every request runs as the key's current record, and an expired token or a
 * revoked key ends the connection with a final Error (401) and close code
 * 4001. A subscription the key may no longer read ends with an Error naming
 * the collection; the connection stays open.
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Packr } from 'msgpackr';
import { InvalidInput, NotFound, NotImplemented, SlowConsumer, SubscriptionEnded, toDbError, type DbError } from '../../errors.js';
import { wsErrorFrame } from '../error-body.js';
import { validateCollectionName } from '../../engine/index.js';
import type { Dispatcher } from '../dispatch.js';
import { decodeBody, toJson } from '../codec.js';
import { showHeader } from '../content-type.js';
import { fromHandshakeError } from './framework-errors.js';
import { writeToSocket } from './socket-response.js';
import { messageArgs, WS_MESSAGE_TYPES, type WsMessageType } from '../messages.js';
import { Notifier, type Subscriber } from '../notifier.js';
import { checkCollectionAccess } from '../permissions.js';
import type { CredentialWatch, WatchedConnection } from '../credential-watch.js';
import type { Principal, TokenGrant } from '../context.js';

/** The upgrade's route, as the access log names it. */
const WS_ROUTE = '/api/ws';

/** Close code sent after the final Error when the token expired or the key was revoked (application range, like HTTP 401). */
export const CLOSE_UNAUTHORIZED = 4001;

const packr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

/** Encoded frames cached on a shared payload, so a fan-out to many subscribers encodes once per format. */
const FRAMES = Symbol('frames');
type Cached = { [FRAMES]?: { json?: string; msgpack?: Buffer } };

export interface WsOptions {
  /** Largest frame answered normally; larger ones get an Error. */
  maxMessageBytes: number;
  /** A subscriber whose unsent data passes this is dropped. */
  maxQueuedBytes: number;
}

export function attachWebSocket(server: HttpServer, dispatcher: Dispatcher, notifier: Notifier, watch: CredentialWatch, opts: WsOptions): WebSocketServer {
  // Frames up to twice the limit are read and refused politely; beyond that ws closes the socket (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes * 2 });
  // Refusals are answered in the product's error format and logged (with the token redacted) like any request.
  const refuse = (req: IncomingMessage, socket: Duplex, err: unknown, at: { route?: string; startedAt?: number } = {}) =>
    writeToSocket(socket, dispatcher.failure(err, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...at }));
  wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) => refuse(req, socket, fromHandshakeError(err)));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const startedAt = performance.now();
    // Split by hand: `new URL` throws on targets such as `//[`, and a throw here would end the process.
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    if (pathname !== '/api/ws' && pathname !== '/api/ws/') {
      refuse(req, socket, new NotFound(`No WebSocket endpoint at ${showHeader(pathname)}; connect to /api/ws`), { startedAt });
      return;
    }
    const token = new URLSearchParams(q < 0 ? '' : target.slice(q + 1)).get('token') ?? undefined;
    dispatcher.authenticate(req.headers.authorization, token).then(
      (principal) => wss.handleUpgrade(req, socket, head, (ws) => {
        dispatcher.logAnswer({ method: req.method ?? 'GET', url: target, route: WS_ROUTE, startedAt }, 101);
        new Connection(ws, principal, dispatcher, notifier, watch, opts);
      }),
      (err) => refuse(req, socket, err, { route: WS_ROUTE, startedAt }),
    );
  });
  return wss;
}

class Connection implements WatchedConnection {
  private format: 'json' | 'msgpack' = 'json';
  private readonly subs = new Map<string, Subscriber>();
  /** Set once nothing more may be sent: a slow consumer was dropped, or the credentials ended. */
  private closed = false;
  readonly grant: TokenGrant;

  constructor(private readonly ws: WebSocket, principal: Principal, private readonly dispatcher: Dispatcher,
    private readonly notifier: Notifier, private readonly watch: CredentialWatch, private readonly opts: WsOptions) {
    this.grant = principal.grant;
    watch.add(this, principal);
    ws.on('message', (data: Buffer, isBinary: boolean) => { void this.onFrame(data, isBinary); });
    ws.on('close', () => this.cleanup());
    ws.on('error', () => this.cleanup());
  }

  private cleanup(): void {
    for (const s of this.subs.values()) this.notifier.remove(s);
    this.subs.clear();
    this.watch.remove(this);
  }

  /** Credentials ended: a final Error (echoing the refused request's id, if any), then close 4001. */
  end(err: DbError, messageId?: unknown): void {
    if (this.closed) return;
    this.error(err, messageId);
    this.closed = true;
    this.cleanup();
    this.ws.close(CLOSE_UNAUTHORIZED, err.message.slice(0, 120));
  }

  /** The key's rights changed: subscriptions it may no longer read end, each with an Error naming the collection. */
  keyChanged(principal: Principal): void {
    for (const [collection, sub] of [...this.subs]) {
      try {
        checkCollectionAccess(principal, collection, 'read');
      } catch (err) {
        this.notifier.remove(sub);
        this.subs.delete(collection);
        const e = toDbError(err);
        this.send(wsErrorFrame(new SubscriptionEnded(`Subscription to '${collection}' ended: ${e.message}`, e), 'ws'));
      }
    }
  }

  private send(msg: Record<string, unknown>, forceText = false): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.format === 'msgpack' && !forceText) this.ws.send(packr.pack(msg), { binary: true });
    else this.ws.send(toJson(msg));
  }

  private error(err: unknown, messageId: unknown): void {
    const requestId = this.dispatcher.report(err, { method: 'WS', url: '/api/ws' });
    this.send(wsErrorFrame(err, requestId, messageId));
  }

  private async onFrame(data: Buffer, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    let messageId: unknown;
    try {
      if (data.length > this.opts.maxMessageBytes) throw new InvalidInput(`Frame of ${data.length} bytes exceeds the limit of ${this.opts.maxMessageBytes}`);
      const msg = decodeBody(data, isBinary ? 'application/msgpack' : 'application/json') as Record<string, any>;
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') throw new InvalidInput('A message must be an object with a string "type"');
      // A null messageId (an unset optional in some clients) is no messageId: nothing to echo.
      messageId = msg.messageId ?? undefined;
      // Rust's RawComplete puts its members at the top level instead of under payload.
      const payload = (msg.payload ?? {}) as Record<string, any>;
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new InvalidInput('"payload" must be an object');
      await this.handle(msg.type, payload, messageId);
    } catch (err) {
      this.error(err, messageId);
    }
  }

  /**
   * Every request gets exactly one reply (Success, or Error from onFrame),
   * echoing its messageId when it carried one, except: Hello gets the text
   * Welcome as is, and a CancelChat without a messageId gets none (see
   * `chatReply`).
   */
  private async handle(type: string, payload: Record<string, any>, messageId: unknown): Promise<void> {
    let principal: Principal;
    try {
      principal = this.watch.current(this);
    } catch (err) {
      this.end(toDbError(err), messageId);
      return;
    }
    const entry = Object.hasOwn(WS_MESSAGE_TYPES, type) ? WS_MESSAGE_TYPES[type]! : undefined;
    if (!entry) throw new InvalidInput(`Unknown message type '${type}'`);
    if ('connection' in entry && entry.connection === 'hello') {
      const formats: unknown[] = Array.isArray(payload.formats) ? payload.formats : [];
      const format = formats.includes('msgpack') ? 'msgpack' : 'json';
      this.send({ type: 'Welcome', payload: { format } }, true);
      this.format = format;
      return;
    }
    const reply = await this.reply(entry, type, payload, messageId !== undefined, principal);
    if (reply) this.send(messageId === undefined ? reply : { ...reply, messageId });
  }

  /** The reply to one request, without its messageId; undefined when the protocol wants none. */
  private async reply(entry: WsMessageType, type: string, payload: Record<string, any>, hasMessageId: boolean, principal: Principal): Promise<Record<string, unknown> | undefined> {
    if ('stream' in entry) return this.subscribe(payload, principal);
    if ('connection' in entry) return this.unsubscribe(payload);
    if ('notServed' in entry) return chatReply(type, payload, hasMessageId);
    const result = await this.dispatcher.call(entry.procedure, messageArgs(entry, payload), principal);
    return success(entry.data ? entry.data(result) : result ?? null);
  }

  private subscribe(payload: Record<string, any>, principal: Principal): Record<string, unknown> {
    const collection = validateCollectionName(payload.collection);
    checkCollectionAccess(principal, collection, 'read');
    const old = this.subs.get(collection);
    if (old) this.notifier.remove(old);
    const sub: Subscriber = {
      id: Notifier.newId(), collection,
      ...(typeof payload.filter_field === 'string' ? { filterField: payload.filter_field, filterValue: String(payload.filter_value ?? '') } : {}),
      mutation: (p) => { if (this.mayReceive(sub)) this.push({ type: 'MutationNotification', payload: p }, p as Cached); },
      schema: (p) => { if (this.mayReceive(sub)) this.push({ type: 'SchemaChanged', payload: p }); },
    };
    this.subs.set(collection, sub);
    this.notifier.add(sub);
    return success({ subscription_id: sub.id, collection });
  }

  /** Answered even when nothing was subscribed (`found: false`): the raw examples wait for this reply. */
  private unsubscribe(payload: Record<string, any>): Record<string, unknown> {
    const collection = String(payload.collection ?? '');
    const sub = this.subs.get(collection);
    if (sub) { this.notifier.remove(sub); this.subs.delete(collection); }
    return success({ collection, found: !!sub, unsubscribed: !!sub });
  }

  /** Checked before each notification: the credentials still hold (or the connection ends) and the subscription survived them. */
  private mayReceive(sub: Subscriber): boolean {
    return this.watch.verify(this) && this.subs.get(sub.collection) === sub;
  }

  /** Unsolicited frames: a consumer that cannot keep up is told once, then dropped. */
  private push(msg: Record<string, unknown>, cacheOn?: Cached): void {
    if (this.closed) return;
    if (this.ws.bufferedAmount > this.opts.maxQueuedBytes) {
      this.send(wsErrorFrame(new SlowConsumer(`Slow consumer: more than ${this.opts.maxQueuedBytes} bytes unsent; closing the connection`), 'ws'));
      this.dispatcher.log('warn', `dropped a slow WebSocket subscriber: more than ${this.opts.maxQueuedBytes} bytes unsent`, { keyId: this.grant.keyId, collections: [...this.subs.keys()] });
      this.closed = true;
      this.cleanup();
      setTimeout(() => this.ws.terminate(), 100).unref();
      return;
    }
    if (!cacheOn || this.ws.readyState !== this.ws.OPEN) { this.send(msg); return; }
    let frames = cacheOn[FRAMES];
    if (!frames) Object.defineProperty(cacheOn, FRAMES, { value: (frames = {}), enumerable: false });
    if (this.format === 'msgpack') this.ws.send(frames.msgpack ??= packr.pack(msg), { binary: true });
    else this.ws.send(frames.json ??= toJson(msg));
  }
}

function success(data: unknown): Record<string, unknown> {
  return { type: 'Success', payload: { data } };
}

/**
 * The reply to a chat message type while chat is not served (protocol.md
 * §3.2, §3.4). ChatSend's client waits on a stream keyed by chat_id, so a
 * ChatStreamError ends it. CancelChat is a no-op, since nothing is ever in
 * flight: Success when it carries a messageId, and no reply without one,
 * which the client could take as the answer to another pending request.
 * The others are an Error 501.
 */
function chatReply(type: string, payload: Record<string, any>, hasMessageId: boolean): Record<string, unknown> | undefined {
  const message = `${type} is not supported by this server yet`;
  if (type === 'ChatSend') return { type: 'ChatStreamError', payload: { chat_id: typeof payload.chat_id === 'string' ? payload.chat_id : '', error: message } };
  if (type === 'CancelChat') return hasMessageId ? success(null) : undefined;
  return wsErrorFrame(new NotImplemented(message), 'ws');
}
