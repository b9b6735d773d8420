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
import { MessageRequest, StreamedTurnEvent } from './chat-shapes.js';

const streamInput = (raw: RawInput) => ({ id: chatId(raw), req: parseMessageRequest(body(raw)) });
type StreamInput = ReturnType<typeof streamInput>;

async function open(input: StreamInput, ctx: Context): Promise<AsyncGenerator<TurnEvent>> {
  // A stream stores the exchange at its end: a read-only server refuses it up front, as it would the whole message.
  if (ctx.storage.readOnly) throw ctx.storage.refuse();
  checkRetrievalAccess(ctx, input.id);
  return ctx.chat.messages.openStream(ctx.session, input.id, input.req, ctx.signal, toolEnv(ctx));
}

export const chatSendStream = defineProcedure({
  name: 'chat.sendStream',
  kind: 'stream',
  access: 'user',
  schema: {
    summary: 'Send a message and stream the reply (server-sent events)',
    description:
      '`data:` lines: {token} per piece of the reply, tool events, then the end {content, message_id, ...} once ' +
      'the exchange is stored; a failure is a final `event: error` frame. An unknown chat is a plain 404.',
    body: MessageRequest,
    response: StreamedTurnEvent,
  },
  input: streamInput,
  scope: () => storage('write', 'write'),
  handler: async (input, ctx): Promise<AsyncIterable<StreamEvent>> => sseEvents(input.id, await open(input, ctx)),
});

async function* sseEvents(chat: string, events: AsyncIterable<TurnEvent>): AsyncGenerator<StreamEvent> {
  for await (const turnEvent of events) {
    switch (turnEvent.kind) {
      case 'token':
        yield { event: 'token', data: { token: turnEvent.text } };
        break;
      case 'tool_call': {
        const { name, callId, arguments: args, client } = turnEvent;
        yield { event: 'tool_call', data: { event: 'tool_call', tool: name, call_id: callId, args, client } };
        break;
      }
      case 'tool_result': {
        const { success, result, error } = turnEvent.outcome;
        yield {
          event: 'tool_result',
          data: {
            event: 'tool_result',
            tool: turnEvent.name,
            call_id: turnEvent.callId,
            success,
            result: result ?? null,
            error: error ?? null,
          },
        };
        break;
      }
      case 'client_tool_call':
        yield {
          event: 'client_tool_call',
          data: {
            event: '__client_tool_call',
            chat_id: chat,
            call_id: turnEvent.callId,
            tool: turnEvent.name,
            tool_name: turnEvent.name,
            arguments: turnEvent.arguments,
            timeout_secs: turnEvent.timeoutSecs,
            ...(turnEvent.confirm ? { confirm: true } : {}),
          },
        };
        break;
      case 'done': {
        const response = turnEvent.response;
        yield {
          event: 'done',
          data: {
            content: response.responses[0] ?? '',
            message_id: response.message_id,
            chat_id: response.chat_id,
            execution_time_ms: response.execution_time_ms,
            token_usage: response.token_usage,
            context_snippets: response.context_snippets,
            ...(response.tool_call_history ? { tool_call_history: response.tool_call_history } : {}),
          },
        };
        break;
      }
    }
  }
}

/** The WebSocket payload `{chat_id, message, ...}`: the chat id beside the message request's members. */
export const chatSendStreamWs = defineProcedure({
  name: 'chat.sendStreamWs',
  kind: 'stream',
  access: 'user',
  input: streamInput,
  scope: () => storage('write', 'write'),
  handler: async (input, ctx): Promise<AsyncIterable<StreamEvent>> => wsEvents(input.id, await open(input, ctx)),
});

async function* wsEvents(chat: string, events: AsyncIterable<TurnEvent>): AsyncGenerator<StreamEvent> {
  for await (const turnEvent of events) {
    if (turnEvent.kind === 'token') yield { event: 'chunk', data: { chat_id: chat, content: turnEvent.text } };
    else if (turnEvent.kind === 'client_tool_call') {
      const { callId, name, arguments: args, confirm } = turnEvent;
      yield {
        event: 'client_tool_call',
        data: {
          chat_id: chat,
          call_id: callId,
          tool_name: name,
          arguments: args,
          ...(confirm ? { confirm: true } : {}),
        },
      };
    } else if (turnEvent.kind === 'done') {
      const response = turnEvent.response;
      yield {
        event: 'end',
        data: {
          chat_id: chat,
          message_id: response.message_id,
          execution_time_ms: response.execution_time_ms,
          token_usage: response.token_usage,
          ...(response.tool_call_history ? { tool_call_history: response.tool_call_history } : {}),
        },
      };
    }
  }
}
