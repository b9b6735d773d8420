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
import type { StreamEvent } from '../procedure.js';
import { toJson } from '../codec.js';
import { sseErrorData, wsErrorFrame } from '../error-body.js';

export type Frame = string | Buffer;

export interface FrameFormat {
  frame(e: StreamEvent): Frame;
  error(err: unknown): Frame;
}

export type WsEncoding = 'json' | 'msgpack';

const packr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

/** A WebSocket message in the connection's encoding: JSON text or a MessagePack binary frame. */
export function encodeWs(msg: Record<string, unknown>, encoding: WsEncoding): Frame {
  return encoding === 'msgpack' ? packr.pack(msg) : toJson(msg);
}

const FRAMES = Symbol('frames');
type Cached = { [FRAMES]?: Map<string, Frame> };

/** The frame of `data` under `key`, encoded once per payload object. */
function cached(data: unknown, key: string, encode: () => Frame): Frame {
  if (data === null || typeof data !== 'object') return encode();
  const holder = data as Cached;
  let frames = holder[FRAMES];
  if (!frames) Object.defineProperty(holder, FRAMES, { value: (frames = new Map()), enumerable: false });
  let frame = frames.get(key);
  if (frame === undefined) frames.set(key, (frame = encode()));
  return frame;
}

const sseError = (err: unknown): Frame => `event: error\ndata: ${toJson(sseErrorData(err, 'sse'))}\n\n`;

/** `event: <name>` + `data: <json>` per event. */
export const sseEventFrames: FrameFormat = {
  frame: (e) => cached(e.data, `sse:${e.event}`, () => `event: ${e.event}\ndata: ${toJson(e.data)}\n\n`),
  error: sseError,
};

/** `data: <json>` per event; the error still has its `event: error` line, as chat clients expect. */
export const sseDataFrames: FrameFormat = {
  frame: (e) => cached(e.data, 'sse-data', () => `data: ${toJson(e.data)}\n\n`),
  error: sseError,
};

/**
 * WebSocket frames of one request's stream: the event named `reply` is the
 * request's Success (echoing its messageId), others `{type, payload}` with
 * the type from `types`. `encoding` is read per frame: Hello may switch it.
 */
export function wsFrames(reply: string, types: Readonly<Record<string, string>>, messageId: unknown, encoding: () => WsEncoding): FrameFormat {
  // Cache keys made once per stream, not per frame: a fan-out looks one up per subscriber.
  const keys: Record<WsEncoding, Map<string, string>> = { json: new Map(), msgpack: new Map() };
  const wsCacheKey = (enc: WsEncoding, type: string): string => {
    let key = keys[enc].get(type);
    if (key === undefined) keys[enc].set(type, (key = `ws-${enc}:${type}`));
    return key;
  };
  return {
    frame: (e) => {
      const enc = encoding();
      if (e.event === reply) return encodeWs({ type: 'Success', payload: { data: e.data }, ...(messageId !== undefined ? { messageId } : {}) }, enc);
      const type = types[e.event] ?? e.event;
      return cached(e.data, wsCacheKey(enc, type), () => encodeWs({ type, payload: e.data }, enc));
    },
    error: (err) => encodeWs(wsErrorFrame(err, 'ws'), encoding()),
  };
}
