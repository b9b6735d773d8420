/**
 * A chat message streamed (protocol.md 2.12 "SSE stream format", §3.4
 * ChatSend): the turn of POST /api/chat/{id}/messages, its events rendered
 * as they happen. The session, provider and prompt are checked before the
 * stream opens (an unknown chat is a plain 404, not a stream). The client
 * going away (SSE) or CancelChat / a closed socket (WebSocket) fires
 * `ctx.signal`: the upstream provider request is aborted and nothing is
 * stored.
 *
 * SSE (`chat.sendStream`, `data:` frames):
 *   {token}                                     a piece of the reply
 *   {event: "tool_call", tool, call_id, args}   a tool the model called
 *   {event: "tool_result", tool, call_id, success, result, error}
 *   {event: "__client_tool_call", chat_id, call_id, tool, tool_name, arguments, timeout_secs}
 *       a client tool to run: answer with POST /api/chat/{id}/tool-result
 *       {call_id, success, result?, error?} (or {call_id, keepalive: true}
 *       to restart the timeout) within timeout_secs. With `confirm: true`
 *       it asks approval of a server tool named in confirm_tools: success
 *       true lets it run, false (or no answer in time) refuses it
 *   {content, message_id, chat_id, execution_time_ms, token_usage, context_snippets, tool_call_history?}   done
 *   an `error` frame with the classified provider fields on failure.
 * WebSocket (`chat.sendStreamWs`): ChatStreamChunk {chat_id, content},
 * ClientToolCall {chat_id, call_id, tool_name, arguments, confirm?}, ChatStreamEnd
 * {chat_id, message_id, execution_time_ms, token_usage, tool_call_history?};
 * tool progress is SSE only (no WebSocket frame type carries it).
 */
import { parseMessageRequest, type TurnEvent } from '../../../chat/index.js';
import { defineProcedure, type RawInput, type StreamEvent } from '../procedure.js';
import { body, chatId, checkRetrievalAccess, storage } from './sessions.js';
import { toolEnv } from './tools.js';
import type { Context } from '../context.js';

const streamInput = (raw: RawInput) => ({ id: chatId(raw), req: parseMessageRequest(body(raw)) });
type StreamInput = ReturnType<typeof streamInput>;

async function open(i: StreamInput, ctx: Context): Promise<AsyncGenerator<TurnEvent>> {
  // A stream stores the exchange at its end: a read-only server refuses it up front, as it would the whole message.
  if (ctx.storage.readOnly) throw ctx.storage.refuse();
  checkRetrievalAccess(ctx, i.id);
  return ctx.chat.messages.openStream(ctx.session, i.id, i.req, ctx.signal, toolEnv(ctx));
}

export const chatSendStream = defineProcedure({
  name: 'chat.sendStream', kind: 'stream', access: 'user',
  input: streamInput,
  scope: () => storage('write', 'write'),
  handler: async (i, ctx): Promise<AsyncIterable<StreamEvent>> => sseEvents(i.id, await open(i, ctx)),
});

async function* sseEvents(chat: string, events: AsyncIterable<TurnEvent>): AsyncGenerator<StreamEvent> {
  for await (const e of events) {
    switch (e.kind) {
      case 'token': yield { event: 'token', data: { token: e.text } }; break;
      case 'tool_call': yield { event: 'tool_call', data: { event: 'tool_call', tool: e.name, call_id: e.callId, args: e.arguments, client: e.client } }; break;
      case 'tool_result': {
        const o = e.outcome;
        yield { event: 'tool_result', data: { event: 'tool_result', tool: e.name, call_id: e.callId, success: o.success, result: o.result ?? null, error: o.error ?? null } };
        break;
      }
      case 'client_tool_call':
        yield {
          event: 'client_tool_call',
          data: {
            event: '__client_tool_call', chat_id: chat, call_id: e.callId, tool: e.name, tool_name: e.name, arguments: e.arguments,
            timeout_secs: e.timeoutSecs, ...(e.confirm ? { confirm: true } : {}),
          },
        };
        break;
      case 'done': {
        const r = e.response;
        yield {
          event: 'done',
          data: {
            content: r.responses[0] ?? '', message_id: r.message_id, chat_id: r.chat_id, execution_time_ms: r.execution_time_ms,
            token_usage: r.token_usage, context_snippets: r.context_snippets, ...(r.tool_call_history ? { tool_call_history: r.tool_call_history } : {}),
          },
        };
        break;
      }
    }
  }
}

/** The WebSocket payload `{chat_id, message, ...}`: the chat id beside the message request's members. */
export const chatSendStreamWs = defineProcedure({
  name: 'chat.sendStreamWs', kind: 'stream', access: 'user',
  input: streamInput,
  scope: () => storage('write', 'write'),
  handler: async (i, ctx): Promise<AsyncIterable<StreamEvent>> => wsEvents(i.id, await open(i, ctx)),
});

async function* wsEvents(chat: string, events: AsyncIterable<TurnEvent>): AsyncGenerator<StreamEvent> {
  for await (const e of events) {
    if (e.kind === 'token') yield { event: 'chunk', data: { chat_id: chat, content: e.text } };
    else if (e.kind === 'client_tool_call') {
      yield { event: 'client_tool_call', data: { chat_id: chat, call_id: e.callId, tool_name: e.name, arguments: e.arguments, ...(e.confirm ? { confirm: true } : {}) } };
    }
    else if (e.kind === 'done') {
      const r = e.response;
      yield {
        event: 'end',
        data: {
          chat_id: chat, message_id: r.message_id, execution_time_ms: r.execution_time_ms, token_usage: r.token_usage,
          ...(r.tool_call_history ? { tool_call_history: r.tool_call_history } : {}),
        },
      };
    }
  }
}
