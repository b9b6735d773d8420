/**
 * The WebSocket transport at /api/ws (protocol.md §3): auth on the upgrade
 * (Authorization header or ?token=), optional Hello answered by a text
 * Welcome that switches the connection to MessagePack, every request answered
 * once with Success/Error, echoing its messageId when it carried one (the raw
 * examples send none). Request types are looked up in WS_MESSAGE_TYPES
 * (messages.ts): most call a procedure; Subscribe opens the stream procedure
 * that SSE serves too (its events become the Success, then
 * MutationNotification and SchemaChanged frames, through the stream
 * renderer), Unsubscribe cancels it. ChatSend opens the chat's message
 * stream the same way (ChatStreamChunk, ClientToolCall, ChatStreamEnd, or
 * ChatStreamError; no Success, as it carries no messageId); CancelChat
 * aborts it (the provider request is cancelled and nothing is stored) and
 * ends it with a ChatStreamError; RegisterClientTools keeps a chat's client
 * tools on the connection for its later ChatSends.
 *
 * A bad frame gets an Error and the connection stays open. A consumer whose
 * send queue passes the cap is told with an Error and then dropped (the
 * renderer's slow-consumer policy).
 *
 * Credentials are re-checked for the life of the connection (CredentialWatch):
 * every request runs as the key's current record, and an expired token or a
 * revoked key ends the connection with a final Error (401) and close code
 * 4001. A subscription the key may not read ends with an Error naming
 * the collection; the connection stays open.
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Conflict, InvalidInput, NotFound, SubscriptionEnded, toDbError, type DbError } from '../../errors.js';
import { parseClientTools, type ToolSpec } from '../../chat/index.js';
import { wsErrorFrame, wsRequestErrorFrame } from '../wire/error-body.js';
import { newRequestId } from '../routing/request-id.js';
import type { Dispatcher, OpenStream } from '../routing/dispatch.js';
import { decodeBody } from '../wire/codec.js';
import { showHeader } from '../wire/content-type.js';
import { fromHandshakeError } from './framework-errors.js';
import { writeToSocket } from './socket-response.js';
import {
  chatStreamKey,
  messageArgs,
  WS_MESSAGE_TYPES,
  type StreamMessage,
  type WsMessageType,
} from '../routing/messages.js';
import {
  encodeSuccess,
  encodeWs,
  successParts,
  wsFrames,
  type Frame,
  type WsEncoding,
} from '../stream/frame-formats.js';
import { RecordList } from '../wire/record-list.js';
import { unwrapRecord } from '../wire/wire-record.js';
import { StreamRenderer, type FrameSink } from '../stream/stream-renderer.js';
import type { CredentialWatch, WatchedConnection } from '../auth/credential-watch.js';
import type { Principal, TokenGrant } from '../procedures/context.js';

/** The upgrade's route, as the access log names it. */
const WS_ROUTE = '/api/ws';

const BINARY = { binary: true } as const;

/** Chats one connection may hold registered client tools for (each list is itself capped by parseClientTools). */
const MAX_TOOL_CHATS = 256;

/**
 * Close code sent after the final Error when the token expired or the key was revoked (application range, like HTTP
 * 401).
 */
export const CLOSE_UNAUTHORIZED = 4001;

export interface WsOptions {
  /** Largest frame answered normally; larger ones get an Error. */
  maxMessageBytes: number;
  /** A subscriber whose unsent data passes this is dropped. */
  maxQueuedBytes: number;
}

export function attachWebSocket(
  server: HttpServer,
  dispatcher: Dispatcher,
  watch: CredentialWatch,
  opts: WsOptions,
): WebSocketServer {
  // Frames up to twice the limit are read and refused politely; beyond that ws closes the socket (1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes * 2 });
  // Refusals are answered in the product's error format and logged (with the token redacted) like any request.
  const refuse = (
    req: IncomingMessage,
    socket: Duplex,
    err: unknown,
    at: { route?: string; startedAt?: number } = {},
  ) =>
    writeToSocket(
      socket,
      dispatcher.failure(err, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...at }),
    );
  wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) =>
    refuse(req, socket, fromHandshakeError(err)),
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const startedAt = performance.now();
    // Split by hand: `new URL` throws on targets such as `//[`, and a throw here would end the process.
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    if (pathname !== '/api/ws' && pathname !== '/api/ws/') {
      refuse(req, socket, new NotFound(`No WebSocket endpoint at ${showHeader(pathname)}; connect to /api/ws`), {
        startedAt,
      });
      return;
    }
    const token = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)).get('token') ?? undefined;
    dispatcher.authenticate(req.headers.authorization, token).then(
      (principal) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          dispatcher.logAnswer({ method: req.method ?? 'GET', url: target, route: WS_ROUTE, startedAt }, 101);
          new Connection(ws, principal, dispatcher, watch, opts);
        }),
      (err) => refuse(req, socket, err, { route: WS_ROUTE, startedAt }),
    );
  });
  return wss;
}

/** A stream a request opened on this connection (Subscribe), under its table key (the collection). */
interface ConnectionStream {
  readonly open: OpenStream;
  readonly renderer: StreamRenderer;
}

class Connection implements WatchedConnection {
  private encoding: WsEncoding = 'json';
  private readonly streams = new Map<string, ConnectionStream>();
  /** Client tools RegisterClientTools registered, by chat id. */
  private readonly clientTools = new Map<string, readonly ToolSpec[]>();
  /** Set once nothing more may be sent: a slow consumer was dropped, or the credentials ended. */
  private closed = false;
  readonly grant: TokenGrant;
  private readonly sink: FrameSink;
  /**
   * While a long reply goes out as the fragments of one message, other
   * frames wait here (a frame between fragments would break the message),
   * with their size; long replies go out one after another.
   */
  private held: { frames: Frame[]; bytes: number } | undefined;
  private longReplies: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    principal: Principal,
    private readonly dispatcher: Dispatcher,
    private readonly watch: CredentialWatch,
    private readonly opts: WsOptions,
  ) {
    this.grant = principal.grant;
    this.sink = {
      queued: () => this.ws.bufferedAmount + (this.held?.bytes ?? 0),
      write: (frame) => {
        if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
        if (this.held) {
          this.held.frames.push(frame);
          this.held.bytes += frame.length;
        } else if (typeof frame === 'string') this.ws.send(frame);
        else this.ws.send(frame, BINARY);
      },
    };
    watch.add(this, principal);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      void this.onFrame(data, isBinary);
    });
    ws.on('close', () => this.cleanup());
    ws.on('error', () => this.cleanup());
  }

  private cleanup(): void {
    for (const stream of this.streams.values()) stream.open.cancel();
    this.streams.clear();
    this.watch.remove(this);
  }

  /** Credentials ended: a final Error (echoing the refused request's ids, if any), then close 4001. */
  end(err: DbError, messageId?: unknown, requestId?: string): void {
    if (this.closed) return;
    this.error(err, messageId, requestId);
    this.closed = true;
    this.cleanup();
    this.ws.close(CLOSE_UNAUTHORIZED, err.message.slice(0, 120));
  }

  /** The key's rights changed: streams it may not run end, each with an Error naming its key (the collection). */
  keyChanged(principal: Principal): void {
    for (const [key, stream] of [...this.streams]) {
      try {
        stream.open.recheck(principal);
      } catch (err) {
        this.stopStream(key);
        const failure = toDbError(err);
        stream.renderer.fail(new SubscriptionEnded(`Subscription to '${key}' ended: ${failure.message}`, failure));
      }
    }
  }

  private send(msg: Record<string, unknown>, forceText = false): void {
    this.sink.write(encodeWs(msg, forceText ? 'json' : this.encoding));
  }

  /**
   * The Error frame answering a message (`requestId` its id, logged with the failure, and its messageId echoed), or
   * one the server sends unasked (no request id in the frame).
   */
  private error(err: unknown, messageId: unknown, requestId?: string): void {
    const logged = this.dispatcher.report(err, { method: 'WS', url: '/api/ws' }, requestId ?? newRequestId());
    this.send(
      requestId === undefined ? wsErrorFrame(err, logged, messageId) : wsRequestErrorFrame(err, logged, messageId),
    );
  }

  private async onFrame(data: Buffer, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    this.dispatcher.requests++;
    // Each message is a request of its own: its id names it in log lines and in its Error frame.
    const requestId = newRequestId();
    let messageId: unknown;
    try {
      if (data.length > this.opts.maxMessageBytes)
        throw new InvalidInput(`Frame of ${data.length} bytes exceeds the limit of ${this.opts.maxMessageBytes}`);
      const msg = decodeBody(data, isBinary ? 'application/msgpack' : 'application/json') as Record<string, unknown>;
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string')
        throw new InvalidInput('A message must be an object with a string "type"');
      // A null messageId (an unset optional in some clients) is no messageId: nothing to echo.
      messageId = msg.messageId ?? undefined;
      // Rust's RawComplete puts its members at the top level instead of under payload.
      const payload = (msg.payload ?? (msg.type === 'RawComplete' ? msg : {})) as Record<string, unknown>;
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
        throw new InvalidInput('"payload" must be an object');
      await this.handle(msg.type, payload, messageId, requestId);
    } catch (err) {
      this.error(err, messageId, requestId);
    }
  }

  /**
   * Every request gets exactly one reply (Success, or Error from onFrame),
   * echoing its messageId when it carried one, except: Hello gets the text
   * Welcome as is, a stream's Success is its first event, and a CancelChat
   * without a messageId gets none (see `chatReply`).
   */
  private async handle(
    type: string,
    payload: Record<string, unknown>,
    messageId: unknown,
    requestId: string,
  ): Promise<void> {
    let principal: Principal;
    try {
      principal = this.watch.current(this);
    } catch (err) {
      this.end(toDbError(err), messageId, requestId);
      return;
    }
    const entry = Object.hasOwn(WS_MESSAGE_TYPES, type) ? WS_MESSAGE_TYPES[type]! : undefined;
    if (!entry) throw new InvalidInput(`Unknown message type '${type}'`);
    if ('stream' in entry)
      return this.openStream(
        entry,
        entry.withClientTools ? this.withClientTools(payload) : payload,
        messageId,
        principal,
        requestId,
      );
    if ('connection' in entry && entry.connection === 'hello') return this.hello(payload);
    if ('connection' in entry) {
      const reply = this.connectionReply(entry, payload, messageId !== undefined);
      if (reply) this.send(messageId === undefined ? reply : { ...reply, messageId });
      return;
    }
    const result = await this.dispatcher.call(
      entry.procedure,
      messageArgs(entry, payload),
      principal,
      entry.data ? 'wire' : 'keep',
      requestId,
    );
    if (result instanceof RecordList) {
      if (result.long) return this.sendLong(successParts(result, messageId, this.encoding));
      this.sink.write(encodeSuccess(result.toWire(), messageId, this.encoding));
      return;
    }
    const data = entry.data ? entry.data(unwrapRecord(result)) : (result ?? null);
    this.sink.write(encodeSuccess(data, messageId, this.encoding));
  }

  /**
   * Sends a long reply as the fragments of one message, each once the socket has taken the one before (back-pressure).
   */
  private sendLong(parts: AsyncIterable<Frame>): Promise<void> {
    const send = async () => {
      if (this.closed) return;
      this.held = { frames: [], bytes: 0 };
      try {
        let previous: Frame | undefined;
        for await (const part of parts) {
          if (previous !== undefined) await this.fragment(previous, false);
          previous = part;
        }
        if (previous !== undefined) await this.fragment(previous, true);
      } catch (err) {
        // The message cannot be finished: the connection ends, as the protocol leaves no other way out.
        this.dispatcher.report(err, { method: 'WS', url: '/api/ws' });
        this.ws.close(1011, 'A reply failed while it was being sent');
      } finally {
        const held = this.held;
        this.held = undefined;
        for (const frame of held.frames) this.sink.write(frame);
      }
    };
    const run = this.longReplies.then(send);
    this.longReplies = run;
    return run;
  }

  private fragment(frame: Frame, fin: boolean): Promise<void> {
    if (this.ws.readyState !== this.ws.OPEN)
      return Promise.reject(new Error('the connection closed during a long reply'));
    return new Promise((resolve, reject) =>
      this.ws.send(frame, { binary: typeof frame !== 'string', fin }, (err) => (err ? reject(err) : resolve())),
    );
  }

  /**
   * The reply to a request about the connection itself, without its messageId; undefined when the protocol wants none.
   */
  private connectionReply(
    entry: Extract<WsMessageType, { connection: string }>,
    payload: Record<string, unknown>,
    hasMessageId: boolean,
  ): Record<string, unknown> | undefined {
    if (entry.connection === 'unsubscribe') return this.unsubscribe(payload);
    if (entry.connection === 'register-client-tools') return this.registerClientTools(payload);
    // A CancelChat without a messageId gets no reply: the client could take it for another pending request's.
    if (entry.connection === 'cancel-chat') return this.cancelChat(payload, hasMessageId);
    return undefined;
  }

  /** Switches the connection to MessagePack when offered; the Welcome itself is text. */
  private hello(payload: Record<string, unknown>): void {
    const formats: unknown[] = Array.isArray(payload.formats) ? payload.formats : [];
    const encoding = formats.includes('msgpack') ? 'msgpack' : 'json';
    this.send({ type: 'Welcome', payload: { format: encoding } }, true);
    this.encoding = encoding;
  }

  /** Opens a stream procedure; its first event is the request's Success, the rest are frames until it ends. */
  private async openStream(
    entry: StreamMessage,
    payload: Record<string, unknown>,
    messageId: unknown,
    principal: Principal,
    requestId: string,
  ): Promise<void> {
    let open: OpenStream;
    try {
      open = await this.dispatcher.openStream(entry.stream, messageArgs(entry, payload), principal, requestId);
    } catch (err) {
      if (!entry.error) throw err;
      this.dispatcher.report(err, { method: 'WS', url: '/api/ws' }, requestId);
      this.send({ ...entry.error(err, payload), ...(messageId !== undefined ? { messageId } : {}) });
      return;
    }
    // The connection may have ended while the stream opened: nothing would ever cancel it.
    if (this.closed || this.ws.readyState !== this.ws.OPEN) {
      open.cancel();
      return;
    }
    const key = entry.key(payload);
    // A chat stream replaced by a newer ChatSend for the same chat is told so (its client stops waiting); a Subscribe
    // is replaced silently.
    if (entry.error) this.streams.get(key)?.renderer.fail(new Conflict('Replaced by a newer ChatSend for this chat'));
    this.stopStream(key);
    const errorFrame = entry.error
      ? (err: unknown) => ({ ...entry.error!(err, payload), ...(messageId !== undefined ? { messageId } : {}) })
      : undefined;
    const renderer = new StreamRenderer(
      this.sink,
      wsFrames(entry.reply, entry.frames, messageId, () => this.encoding, errorFrame),
      {
        maxQueuedBytes: this.opts.maxQueuedBytes,
        transport: 'WebSocket',
        closing: 'connection',
        log: (level, msg, extra) => this.dispatcher.log(level, msg, extra, requestId),
        describe: () => ({ keyId: this.grant.keyId, collections: [...this.streams.keys()] }),
        drop: () => this.drop(),
      },
      open.signal,
    );
    const stream: ConnectionStream = { open, renderer };
    this.streams.set(key, stream);
    // Checked before each event: the credentials still hold (or the connection ends) and the stream was not replaced.
    void renderer
      .run(open.events, () => this.watch.verify(this) && this.streams.get(key) === stream)
      .then(() => {
        if (this.streams.get(key) === stream) this.stopStream(key);
      });
  }

  private stopStream(key: string): boolean {
    const stream = this.streams.get(key);
    if (!stream) return false;
    this.streams.delete(key);
    stream.open.cancel();
    return true;
  }

  /** Answered even when nothing was subscribed (`found: false`): the raw examples wait for this reply. */
  private unsubscribe(payload: Record<string, unknown>): Record<string, unknown> {
    const collection = String(payload.collection ?? '');
    const found = this.stopStream(collection);
    return success({ collection, found, unsubscribed: found });
  }

  /**
   * CancelChat: the chat's stream in flight ends with a ChatStreamError
   * (its client stops waiting) and is aborted, so the provider request is
   * cancelled and nothing is stored. Nothing in flight is a no-op.
   */
  private cancelChat(payload: Record<string, unknown>, hasMessageId: boolean): Record<string, unknown> | undefined {
    const chatId = typeof payload.chat_id === 'string' ? payload.chat_id : '';
    const key = chatStreamKey(chatId);
    const stream = this.streams.get(key);
    if (stream) {
      this.send({
        type: 'ChatStreamError',
        payload: { chat_id: chatId, error: 'Chat stream cancelled', error_kind: 'cancelled' },
      });
      stream.renderer.close();
      this.stopStream(key);
    }
    return hasMessageId ? success({ chat_id: chatId, cancelled: stream !== undefined }) : undefined;
  }

  /**
   * RegisterClientTools: `{chat_id, tools}` kept for this chat's ChatSends on this connection (an empty list forgets
   * them).
   */
  private registerClientTools(payload: Record<string, unknown>): Record<string, unknown> {
    if (typeof payload.chat_id !== 'string' || payload.chat_id === '')
      throw new InvalidInput("'chat_id' is required: a chat id");
    const tools = parseClientTools(payload.tools, 'tools');
    if (tools.length > 0 && !this.clientTools.has(payload.chat_id) && this.clientTools.size >= MAX_TOOL_CHATS) {
      throw new InvalidInput(
        `Client tools are registered for ${MAX_TOOL_CHATS} chats on this connection already; register an empty list ` +
          `to forget some`,
      );
    }
    if (tools.length === 0) this.clientTools.delete(payload.chat_id);
    else this.clientTools.set(payload.chat_id, tools);
    return success({ status: 'tools_registered', chat_id: payload.chat_id, tools: tools.map((t) => t.name) });
  }

  /** A ChatSend's payload with the chat's registered client tools added (its own win by name). */
  private withClientTools(payload: Record<string, unknown>): Record<string, unknown> {
    const registered = typeof payload.chat_id === 'string' ? this.clientTools.get(payload.chat_id) : undefined;
    if (!registered) return payload;
    const own: unknown[] = Array.isArray(payload.client_tools) ? payload.client_tools : [];
    const ownNames = new Set(
      own.map((t) => (t !== null && typeof t === 'object' ? (t as { name?: unknown }).name : undefined)),
    );
    return { ...payload, client_tools: [...own, ...registered.filter((t) => !ownNames.has(t.name))] };
  }

  /** A slow consumer was told: nothing more is sent, and the socket goes shortly after the Error frame. */
  private drop(): void {
    this.closed = true;
    this.cleanup();
    setTimeout(() => this.ws.terminate(), 100).unref();
  }
}

function success(data: unknown): Record<string, unknown> {
  return { type: 'Success', payload: { data } };
}
