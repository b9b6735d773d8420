/**
 * The WebSocket message table (protocol.md §3.4): one line per request type.
 * Most name a procedure; the payload's members are its named arguments as
 * they are, and where the names or the shape differ from the HTTP route a
 * small adapter builds the arguments (`args`) or picks the Success `data`
 * from the result (`data`). Subscribe names a stream procedure and how its
 * events become frames; Hello, Unsubscribe, CancelChat and
 * RegisterClientTools act on the connection itself. ChatSend is a stream
 * keyed by its chat (`chat:<id>`; collection names cannot hold a colon, so
 * it never meets a Subscribe's key) whose failure is a ChatStreamError.
 */
import type { RawInput } from '../procedures/procedure.js';
import { sseErrorData } from '../wire/error-body.js';

type Payload = Record<string, unknown>;

/** The reply's data: member `name` of the procedure's result object. */
const memberOf =
  (name: string) =>
  (result: unknown): unknown =>
    (result as Record<string, unknown>)[name];

/** A request answered once with Success `{data}`. */
export interface CallMessage {
  readonly procedure: string;
  /** Payload -> arguments; by default the payload's members, with an empty body. */
  readonly args?: (payload: Payload) => RawInput;
  readonly data?: (result: unknown) => unknown;
}

/**
 * A request opening a stream, one per `key` on a connection (a second one
 * replaces the first). The stream event named `reply` becomes the request's
 * Success (with its messageId); every other event becomes a frame of the
 * type `frames` names, with the event's data as payload.
 */
export interface StreamMessage {
  readonly stream: string;
  readonly args?: (payload: Payload) => RawInput;
  readonly key: (payload: Payload) => string;
  readonly reply: string;
  readonly frames: Readonly<Record<string, string>>;
  /** The frame a failure (opening or mid-stream) becomes, when not the plain Error frame. */
  readonly error?: (err: unknown, payload: Payload) => Record<string, unknown>;
  /** The client tools RegisterClientTools registered for the payload's chat join the payload's own `client_tools`. */
  readonly withClientTools?: boolean;
}

/**
 * Handled by the connection: Hello switches the frame format, Unsubscribe
 * ends a stream by its key, CancelChat ends a chat's stream, and
 * RegisterClientTools keeps a chat's client tools for its ChatSends.
 */
export interface ConnectionMessage {
  readonly connection: 'hello' | 'unsubscribe' | 'cancel-chat' | 'register-client-tools';
}

export type WsMessageType = CallMessage | StreamMessage | ConnectionMessage;

/** The stream key of a chat's ChatSend. */
export const chatStreamKey = (chatId: unknown): string => `chat:${typeof chatId === 'string' ? chatId : ''}`;

/** ChatStreamError: the chat, and the error's fields (error, and error_kind, provider... for a provider failure). */
export function chatStreamError(err: unknown, chatId: unknown): Record<string, unknown> {
  const data = sseErrorData(err, 'ws');
  const error = typeof data.error === 'string' ? data.error : String(data.message ?? 'Chat stream failed');
  return { type: 'ChatStreamError', payload: { chat_id: typeof chatId === 'string' ? chatId : '', ...data, error } };
}

const args = (named: Payload, body: unknown = {}): RawInput => ({ args: named, body });

/** `bypass_ripple` counts only when it is `true`, as the clients send it. */
const ripple = (payload: Payload): Payload => (payload.bypass_ripple === true ? { bypass_ripple: true } : {});

const withoutKeys = (payload: Payload, ...keys: string[]) => {
  const out: Payload = {};
  for (const [key, value] of Object.entries(payload)) if (!keys.includes(key)) out[key] = value;
  return out;
};

export const WS_MESSAGE_TYPES: Readonly<Record<string, WsMessageType>> = {
  Hello: { connection: 'hello' },
  Subscribe: {
    stream: 'changes.subscribe',
    key: (p) => String(p.collection ?? ''),
    reply: 'subscribed',
    frames: { mutation: 'MutationNotification', schema_changed: 'SchemaChanged' },
  },
  Unsubscribe: { connection: 'unsubscribe' },

  FindAll: { procedure: 'records.find', args: (p) => args({ collection: p.collection }) },
  Query: { procedure: 'records.find', args: (p) => args({ collection: p.collection }, withoutKeys(p, 'collection')) },
  FindById: { procedure: 'records.findById', args: (p) => args({ collection: p.collection, id: p.id }) },
  Insert: { procedure: 'records.insert', args: (p) => args({ collection: p.collection, ...ripple(p) }, p.record) },
  Update: {
    procedure: 'records.update',
    args: (p) => args({ collection: p.collection, id: p.id, ...ripple(p) }, p.record),
  },
  Delete: { procedure: 'records.delete', args: (p) => args({ collection: p.collection, id: p.id, ...ripple(p) }) },
  BatchInsert: {
    procedure: 'batch.insert',
    args: (p) =>
      args(
        { collection: p.collection, ...ripple(p) },
        { inserts: Array.isArray(p.records) ? p.records.map((data: unknown) => ({ data })) : p.records },
      ),
  },
  BatchUpdate: {
    procedure: 'batch.update',
    args: (p) =>
      args(
        { collection: p.collection, ...ripple(p) },
        {
          updates: Array.isArray(p.updates)
            ? p.updates.map((u: unknown) => (Array.isArray(u) ? { id: u[0], data: u[1] } : u))
            : p.updates,
        },
      ),
  },
  BatchDelete: {
    procedure: 'batch.delete',
    args: (p) =>
      args(
        { collection: p.collection, ...ripple(p) },
        { deletes: Array.isArray(p.ids) ? p.ids.map((id: unknown) => ({ id })) : p.ids },
      ),
  },
  DistinctValues: {
    procedure: 'records.distinct',
    args: (p) =>
      args(
        { collection: p.collection, field: p.field },
        p.filter === undefined || p.filter === null ? {} : { filter: p.filter },
      ),
  },
  UpdateWithAction: {
    procedure: 'records.updateAction',
    args: (p) =>
      args(
        { collection: p.collection, id: p.id, action: p.action, ...ripple(p) },
        { field: p.field, value: p.value ?? null },
      ),
  },
  CreateCollection: { procedure: 'collections.create', args: (p) => args({ collection: p.name }, p.schema ?? {}) },
  GetCollections: { procedure: 'collections.list', args: () => args({}), data: memberOf('collections') },
  DeleteCollection: { procedure: 'collections.delete', args: (p) => args({ collection: p.name }) },
  TextSearch: {
    procedure: 'search.query',
    args: (p) => args({ collection: p.collection }, { query: p.query, ...(p.options ?? {}) }),
    data: memberOf('results'),
  },

  ChatSend: {
    stream: 'chat.sendStreamWs',
    args: (p) => args({ chatId: p.chat_id }, withoutKeys(p, 'chat_id')),
    key: (p) => chatStreamKey(p.chat_id),
    // No Success: ChatSend carries no messageId; the client reads the chat's frames.
    reply: '',
    frames: { chunk: 'ChatStreamChunk', end: 'ChatStreamEnd', client_tool_call: 'ClientToolCall' },
    error: (err, p) => chatStreamError(err, p.chat_id),
    withClientTools: true,
  },
  RegisterClientTools: { connection: 'register-client-tools' },
  ClientToolResult: {
    procedure: 'chat.toolResult',
    args: (p) => args({ chatId: p.chat_id }, withoutKeys(p, 'chat_id')),
  },
  CancelChat: { connection: 'cancel-chat' },
  // The payload is the HTTP body of POST /api/chat/complete (Rust sends it flattened into the frame: transport/ws.ts).
  RawComplete: { procedure: 'chat.complete', args: (p) => args({}, withoutKeys(p, 'type', 'messageId')) },
};

/** The arguments of a message: its adapter's, or the payload's members as they are. */
export function messageArgs(entry: CallMessage | StreamMessage, payload: Payload): RawInput {
  return entry.args ? entry.args(payload) : args(payload);
}
