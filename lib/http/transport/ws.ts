/**
 * The WebSocket transport at /api/ws (protocol.md §3): auth on the upgrade
 * (Authorization header or ?token=), optional Hello answered by a text
 * Welcome that switches the connection to MessagePack, every request type
 * of the message table answered with Success/Error echoing messageId, and
 * Subscribe/Unsubscribe feeding MutationNotification and SchemaChanged.
 *
 * A bad frame gets an Error and the connection stays open. A consumer whose
 * send queue passes the cap is told with an Error and then dropped.
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Packr } from 'msgpackr';
import { InvalidInput, NotFound, toDbError } from '../../errors.js';
import { validateCollectionName } from '../../engine/index.js';
import type { Dispatcher } from '../dispatch.js';
import { decodeBody, toJson } from '../codec.js';
import { showHeader } from '../content-type.js';
import { fromHandshakeError } from './framework-errors.js';
import { writeToSocket } from './socket-response.js';
import { MESSAGES, UNSUPPORTED } from '../messages.js';
import { Notifier, type Subscriber } from '../notifier.js';
import { checkCollectionAccess } from '../permissions.js';
import type { Principal } from '../context.js';

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

export function attachWebSocket(server: HttpServer, dispatcher: Dispatcher, notifier: Notifier, opts: WsOptions): WebSocketServer {
  // Frames up to twice the limit are read and refused politely; beyond that ws closes the socket (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes * 2 });
  // Refusals are answered in the product's error format and logged (with the token redacted) like any request.
  const refuse = (req: IncomingMessage, socket: Duplex, err: unknown) =>
    writeToSocket(socket, dispatcher.failure(err, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }));
  wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) => refuse(req, socket, fromHandshakeError(err)));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Split by hand: `new URL` throws on targets such as `//[`, and a throw here would end the process.
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    if (pathname !== '/api/ws' && pathname !== '/api/ws/') {
      refuse(req, socket, new NotFound(`No WebSocket endpoint at ${showHeader(pathname)}; connect to /api/ws`));
      return;
    }
    const token = new URLSearchParams(q < 0 ? '' : target.slice(q + 1)).get('token') ?? undefined;
    dispatcher.authenticate(req.headers.authorization, token).then(
      (principal) => wss.handleUpgrade(req, socket, head, (ws) => new Connection(ws, principal, dispatcher, notifier, opts)),
      (err) => refuse(req, socket, err),
    );
  });
  return wss;
}

class Connection {
  private format: 'json' | 'msgpack' = 'json';
  private readonly subs = new Map<string, Subscriber>();
  private dropped = false;

  constructor(private readonly ws: WebSocket, private readonly principal: Principal, private readonly dispatcher: Dispatcher,
    private readonly notifier: Notifier, private readonly opts: WsOptions) {
    ws.on('message', (data: Buffer, isBinary: boolean) => { void this.onFrame(data, isBinary); });
    ws.on('close', () => this.cleanup());
    ws.on('error', () => this.cleanup());
  }

  private cleanup(): void {
    for (const s of this.subs.values()) this.notifier.remove(s);
    this.subs.clear();
  }

  private send(msg: Record<string, unknown>, forceText = false): void {
    if (this.dropped || this.ws.readyState !== this.ws.OPEN) return;
    if (this.format === 'msgpack' && !forceText) this.ws.send(packr.pack(msg), { binary: true });
    else this.ws.send(toJson(msg));
  }

  private error(err: unknown, messageId: unknown): void {
    const e = toDbError(err);
    const r = this.dispatcher.report(err, { method: 'WS', url: '/api/ws' });
    const message = typeof r.body.error === 'string' ? r.body.error : String(r.body.message ?? e.message);
    this.send({ type: 'Error', code: r.status, message, ...(messageId !== undefined ? { messageId } : {}) });
  }

  private async onFrame(data: Buffer, isBinary: boolean): Promise<void> {
    let messageId: unknown;
    try {
      if (data.length > this.opts.maxMessageBytes) throw new InvalidInput(`Frame of ${data.length} bytes exceeds the limit of ${this.opts.maxMessageBytes}`);
      const msg = decodeBody(data, isBinary ? 'application/msgpack' : 'application/json') as Record<string, any>;
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') throw new InvalidInput('A message must be an object with a string "type"');
      messageId = msg.messageId;
      // Rust's RawComplete puts its members at the top level instead of under payload.
      const payload = (msg.payload ?? {}) as Record<string, any>;
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new InvalidInput('"payload" must be an object');
      await this.handle(msg.type, payload, messageId);
    } catch (err) {
      this.error(err, messageId);
    }
  }

  private async handle(type: string, payload: Record<string, any>, messageId: unknown): Promise<void> {
    if (type === 'Hello') {
      const formats: unknown[] = Array.isArray(payload.formats) ? payload.formats : [];
      const format = formats.includes('msgpack') ? 'msgpack' : 'json';
      this.send({ type: 'Welcome', payload: { format } }, true);
      this.format = format;
      return;
    }
    if (type === 'Subscribe') return this.subscribe(payload, messageId);
    if (type === 'Unsubscribe') {
      const c = String(payload.collection ?? '');
      const s = this.subs.get(c);
      if (s) { this.notifier.remove(s); this.subs.delete(c); }
      if (messageId !== undefined) this.send({ type: 'Success', payload: { data: { collection: c, found: !!s, unsubscribed: !!s } }, messageId });
      return;
    }
    if (UNSUPPORTED.has(type)) {
      if (type === 'CancelChat' && messageId === undefined) return;
      this.send({ type: 'Error', code: 501, message: `${type} is not supported by this server yet`, ...(messageId !== undefined ? { messageId } : {}) });
      return;
    }
    const route = MESSAGES[type];
    if (!route) throw new InvalidInput(`Unknown message type '${type}'`);
    const result = await this.dispatcher.call(route.procedure, route.toRaw(payload), this.principal);
    this.send({ type: 'Success', payload: { data: route.toData ? route.toData(result) : result ?? null }, ...(messageId !== undefined ? { messageId } : {}) });
  }

  private subscribe(payload: Record<string, any>, messageId: unknown): void {
    const collection = validateCollectionName(payload.collection);
    checkCollectionAccess(this.principal, collection, 'read');
    const old = this.subs.get(collection);
    if (old) this.notifier.remove(old);
    const sub: Subscriber = {
      id: Notifier.newId(), collection,
      ...(typeof payload.filter_field === 'string' ? { filterField: payload.filter_field, filterValue: String(payload.filter_value ?? '') } : {}),
      mutation: (p) => this.push({ type: 'MutationNotification', payload: p }, p as Cached),
      schema: (p) => this.push({ type: 'SchemaChanged', payload: p }),
    };
    this.subs.set(collection, sub);
    this.notifier.add(sub);
    this.send({ type: 'Success', payload: { data: { subscription_id: sub.id, collection } }, ...(messageId !== undefined ? { messageId } : {}) });
  }

  /** Unsolicited frames: a consumer that cannot keep up is told once, then dropped. */
  private push(msg: Record<string, unknown>, cacheOn?: Cached): void {
    if (this.dropped) return;
    if (this.ws.bufferedAmount > this.opts.maxQueuedBytes) {
      this.send({ type: 'Error', code: 503, message: `Slow consumer: more than ${this.opts.maxQueuedBytes} bytes unsent; closing the connection` });
      this.dropped = true;
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
