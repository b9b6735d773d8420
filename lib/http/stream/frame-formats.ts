/**
 * How stream events look on the wire, one format per framing: SSE `event:`
 * frames (subscriptions), SSE `data:` frames (for streams whose clients read
 * only data lines, such as chat chunks), and WebSocket frames in JSON or
 * MessagePack. Each format also renders the stream's final error frame
 * through error-body.ts.
 *
 * A frame of a shared event payload (one change notice fanned out to many
 * subscribers) is encoded once per format and cached on the payload.
 */
import { Packr } from 'msgpackr';
import type { StreamEvent } from '../procedures/procedure.js';
import { toJson } from '../wire/codec.js';
import { sseErrorData, wsErrorFrame } from '../wire/error-body.js';
import { unwrapRecord, WireRecord } from '../wire/wire-record.js';
import type { RecordList } from '../wire/record-list.js';

export type Frame = string | Buffer;

export interface FrameFormat {
  frame(event: StreamEvent): Frame;
  error(err: unknown): Frame;
  /** A keep-alive frame, for formats that send one (SSE). */
  heartbeat?(): Frame;
}

export type WsEncoding = 'json' | 'msgpack';

const packr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

/** A WebSocket message in the connection's encoding: JSON text or a MessagePack binary frame. */
export function encodeWs(msg: Record<string, unknown>, encoding: WsEncoding): Frame {
  return encoding === 'msgpack' ? packr.pack(msg) : toJson(msg);
}

/**
 * A request's Success reply, `{type, payload: {data}, messageId?}`. A stored
 * record's JSON is written straight from its fields when it can be (a
 * FindById answer), else the record's wire object is encoded as any data.
 */
export function encodeSuccess(data: unknown, messageId: unknown, encoding: WsEncoding): Frame {
  const direct = encoding === 'json' && data instanceof WireRecord ? data.directJson() : undefined;
  if (direct !== undefined) {
    const id = messageId === undefined ? '' : `,"messageId":${toJson(messageId)}`;
    return `{"type":"Success","payload":{"data":${direct}}${id}}`;
  }
  const msg: Record<string, unknown> = { type: 'Success', payload: { data: unwrapRecord(data) } };
  if (messageId !== undefined) msg.messageId = messageId;
  return encodeWs(msg, encoding);
}

/**
 * The Success reply to a request whose answer is a long list of records, in
 * parts to be sent as the fragments of one WebSocket message: the envelope
 * around the list's chunks (record-list.ts), `messageId` last in JSON and
 * MessagePack alike. Decoded, it is what encodeSuccess makes of the list.
 */
export async function* successParts(list: RecordList, messageId: unknown, encoding: WsEncoding): AsyncGenerator<Frame> {
  if (encoding === 'json') {
    yield '{"type":"Success","payload":{"data":';
    yield* list.jsonChunks();
    yield messageId === undefined ? '}}' : `},"messageId":${toJson(messageId)}}`;
    return;
  }
  // A map of 2 or 3 entries: type, payload {data: [...]}, then messageId when there is one.
  yield Buffer.concat([
    Buffer.from([messageId === undefined ? 0x82 : 0x83]),
    packr.pack('type'),
    packr.pack('Success'),
    packr.pack('payload'),
    Buffer.from([0x81]),
    packr.pack('data'),
  ]);
  yield* list.msgpackChunks();
  if (messageId !== undefined) yield Buffer.concat([packr.pack('messageId'), packr.pack(messageId)]);
}

const FRAMES = Symbol('frames');
type Cached = { [FRAMES]?: Map<string, Frame> };

/** One frame shape: its cache key and its encoder of a payload. */
interface Encoder {
  readonly key: string;
  encode(data: unknown): Frame;
}

/** The frame of `data` in the encoder's shape, encoded once per payload object. */
function cached(data: unknown, encoder: Encoder): Frame {
  if (data === null || typeof data !== 'object') return encoder.encode(data);
  const holder = data as Cached;
  let frames = holder[FRAMES];
  if (!frames) Object.defineProperty(holder, FRAMES, { value: (frames = new Map()), enumerable: false });
  let frame = frames.get(encoder.key);
  if (frame === undefined) frames.set(encoder.key, (frame = encoder.encode(data)));
  return frame;
}

const sseError = (err: unknown): Frame => `event: error\ndata: ${toJson(sseErrorData(err, 'sse'))}\n\n`;

/** `event: <name>` + `data: <json>` per event. */
export function sseEventFrames(): FrameFormat {
  const encoders = new Map<string, Encoder>();
  const encoderOf = (event: string): Encoder => {
    let encoder = encoders.get(event);
    if (encoder === undefined)
      encoders.set(
        event,
        (encoder = { key: `sse:${event}`, encode: (data) => `event: ${event}\ndata: ${toJson(data)}\n\n` }),
      );
    return encoder;
  };
  return {
    frame: (e) => cached(e.data, encoderOf(e.event)),
    error: sseError,
    heartbeat: () => `event: heartbeat\ndata: ${toJson({ timestamp: new Date().toISOString() })}\n\n`,
  };
}

const SSE_DATA: Encoder = { key: 'sse-data', encode: (data) => `data: ${toJson(data)}\n\n` };

/**
 * `data: <json>` per event; the error still has its `event: error` line, as
 * chat clients expect; heartbeats are comment lines, which they skip.
 */
export function sseDataFrames(): FrameFormat {
  return { frame: (e) => cached(e.data, SSE_DATA), error: sseError, heartbeat: () => ': heartbeat\n\n' };
}

/**
 * WebSocket frames of one request's stream: the event named `reply` is the
 * request's Success (echoing its messageId), others `{type, payload}` with
 * the type from `types`. `encoding` is read per frame: Hello may switch it.
 * `errorFrame` replaces the plain Error frame (a chat stream's ChatStreamError).
 */
export function wsFrames(
  reply: string,
  types: Readonly<Record<string, string>>,
  messageId: unknown,
  encoding: () => WsEncoding,
  errorFrame?: (err: unknown) => Record<string, unknown>,
): FrameFormat {
  // Encoders made once per stream and event, not per frame: a fan-out looks one up per subscriber.
  const encoders: Record<WsEncoding, Map<string, Encoder>> = { json: new Map(), msgpack: new Map() };
  const encoderOf = (enc: WsEncoding, event: string): Encoder => {
    let encoder = encoders[enc].get(event);
    if (encoder === undefined) {
      const type = types[event] ?? event;
      encoders[enc].set(
        event,
        (encoder = { key: `ws-${enc}:${type}`, encode: (data) => encodeWs({ type, payload: data }, enc) }),
      );
    }
    return encoder;
  };
  return {
    frame: (event) => {
      const enc = encoding();
      if (event.event === reply) {
        const id = messageId !== undefined ? { messageId } : {};
        return encodeWs({ type: 'Success', payload: { data: event.data }, ...id }, enc);
      }
      return cached(event.data, encoderOf(enc, event.event));
    },
    error: (err) => encodeWs(errorFrame ? errorFrame(err) : wsErrorFrame(err, 'ws'), encoding()),
  };
}
