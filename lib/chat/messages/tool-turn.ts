/**
 * A turn with tools: ask the provider with the tools offered, run the calls
 * it makes (server tools here, client tools by asking the client through
 * the ClientToolBroker and waiting), give it the results, and ask again,
 * at most `max_iterations` rounds; the answer after the last round is the
 * turn's reply. Events tell the transport what happens as it happens
 * (tokens, tool_call, tool_result, client_tool_call); the last event is the
 * completion with the turn's tool_call_history (protocol.md 2.12).
 *
 * Once the rounds are used up the provider is asked once more with
 * tool_choice `none`, so the turn ends with text rather than a dangling call.
 */
import { ProviderFailed } from '../../errors.js';
import type {
  ChatMessage,
  ChatProvider,
  Completion,
  CompletionRequest,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from '../providers/provider.js';
import type { ClientToolBroker } from '../tools/client-tool-broker.js';
import { resolveToolConfig, type MessageTools, type ToolConfig } from '../tools/tool-config.js';
import {
  executeServerTool,
  isServerTool,
  serverToolSpecs,
  type ToolContext,
  type ToolOutcome,
} from '../tools/server-tools.js';

/**
 * What the transport gives a turn to run tools with: the caller's session and rights, and how client tools are reached.
 */
export interface ToolEnv {
  readonly context: Omit<ToolContext, 'allowWrite' | 'allowedCollections'>;
  /** How long a client tool call waits without news (client_tool_timeout_secs). */
  readonly clientTimeoutMs: number;
}

export interface ToolHistory {
  iterations: number;
  tool_calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  tool_results: Array<{
    tool_call_id: string;
    tool_name: string;
    success: boolean;
    result: unknown;
    error: string | null;
  }>;
}

export type ToolTurnEvent =
  | { readonly kind: 'token'; readonly text: string }
  | {
      readonly kind: 'tool_call';
      readonly callId: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
      readonly client: boolean;
    }
  | {
      readonly kind: 'client_tool_call';
      readonly callId: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
      readonly timeoutSecs: number;
      /** An approval of a server tool (confirm_tools): the client answers success true to let it run. */
      readonly confirm: boolean;
    }
  | { readonly kind: 'tool_result'; readonly callId: string; readonly name: string; readonly outcome: ToolOutcome }
  | { readonly kind: 'completion'; readonly completion: Completion; readonly history?: ToolHistory };

export interface ToolPlan {
  readonly config: ToolConfig;
  readonly offered: readonly ToolSpec[];
  readonly client: ReadonlySet<string>;
  /** Server tools that wait for the client's approval before they run. */
  readonly confirm: ReadonlySet<string>;
  readonly context: ToolContext;
  readonly clientTimeoutMs: number;
}

/**
 * The tools of this turn, or undefined when none are offered: server tools
 * when tool_config is enabled (the chat session's or the message's), client
 * tools when the message brings some and the transport can reach the client.
 */
export function planTools(
  chatSessionToolConfig: Readonly<Record<string, unknown>> | null,
  tools: MessageTools,
  env: ToolEnv | undefined,
  clientReachable: boolean,
): ToolPlan | undefined {
  if (!env) return undefined;
  const config = resolveToolConfig(chatSessionToolConfig, tools);
  const server = config.enabled ? serverToolSpecs(config.allowWrite, config.allowedTools, tools.excludeTools) : [];
  const client = clientReachable
    ? tools.clientTools.filter((t) => !tools.excludeTools.includes(t.name) && !isServerTool(t.name))
    : [];
  if (server.length === 0 && client.length === 0) return undefined;
  return {
    config,
    offered: [...server, ...client],
    client: new Set(client.map((t) => t.name)),
    clientTimeoutMs: env.clientTimeoutMs,
    confirm: new Set(clientReachable ? (tools.confirmTools ?? []) : []),
    context: {
      ...env.context,
      allowWrite: config.allowWrite,
      ...(config.allowedCollections ? { allowedCollections: config.allowedCollections } : {}),
    },
  };
}

export interface ToolTurnInput {
  readonly provider: ChatProvider;
  readonly request: CompletionRequest;
  readonly plan: ToolPlan;
  readonly broker: ClientToolBroker;
  readonly chatId: string;
  readonly streamed: boolean;
  readonly signal?: AbortSignal;
}

export async function* runToolTurn(input: ToolTurnInput): AsyncGenerator<ToolTurnEvent> {
  const { provider, plan, signal } = input;
  const messages: ChatMessage[] = [...input.request.messages];
  const history: ToolHistory = { iterations: 0, tool_calls: [], tool_results: [] };
  let usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (;;) {
    const last = history.iterations >= plan.config.maxIterations;
    const request: CompletionRequest = {
      ...input.request,
      messages: [...messages],
      tools: plan.offered,
      toolChoice: choiceFor(plan.config.toolChoice, history.iterations, last),
    };
    let completion: Completion | undefined;
    if (input.streamed) {
      for await (const chunk of provider.stream(request, signal)) {
        if (chunk.kind === 'token') yield { kind: 'token', text: chunk.text };
        else completion = chunk.completion;
      }
    } else {
      completion = await provider.complete(request, signal);
    }
    if (!completion)
      throw new ProviderFailed(
        `${provider.id} ended its stream without a completion`,
        'provider_unavailable',
        provider.id,
        null,
      );
    signal?.throwIfAborted();
    usage = addUsage(usage, completion.usage);
    const calls = completion.toolCalls ?? [];
    if (calls.length === 0 || last) {
      yield {
        kind: 'completion',
        completion: { ...completion, usage },
        ...(history.iterations > 0 ? { history } : {}),
      };
      return;
    }
    history.iterations++;
    messages.push({ role: 'assistant', content: completion.content, toolCalls: calls });
    for (const call of calls) {
      const outcome = yield* runCall(input, call, history);
      messages.push({ role: 'tool', content: toolMessage(outcome), toolCallId: call.id });
    }
  }
}

async function* runCall(
  input: ToolTurnInput,
  call: ToolCall,
  history: ToolHistory,
): AsyncGenerator<ToolTurnEvent, ToolOutcome> {
  const client = input.plan.client.has(call.name);
  history.tool_calls.push({ id: call.id, name: call.name, arguments: call.arguments });
  yield { kind: 'tool_call', callId: call.id, name: call.name, arguments: call.arguments, client };
  let outcome: ToolOutcome;
  if (client) {
    outcome = yield* askClient(input, call, false);
  } else {
    const approval = input.plan.confirm.has(call.name) ? yield* askClient(input, call, true) : undefined;
    outcome =
      approval && !approval.success
        ? {
            success: false,
            error: `The client did not approve '${call.name}'${approval.error ? `: ${approval.error}` : ''}`,
          }
        : await executeServerTool(call.name, call.arguments, input.plan.context);
  }
  history.tool_results.push({
    tool_call_id: call.id,
    tool_name: call.name,
    success: outcome.success,
    result: outcome.result ?? null,
    error: outcome.error ?? null,
  });
  yield { kind: 'tool_result', callId: call.id, name: call.name, outcome };
  return outcome;
}

/** Sends a call to the client (to run, or to approve) and waits for its answer. */
async function* askClient(
  input: ToolTurnInput,
  call: ToolCall,
  confirm: boolean,
): AsyncGenerator<ToolTurnEvent, ToolOutcome> {
  const callId = input.broker.newCallId();
  const timeoutMs = input.plan.clientTimeoutMs;
  // Waiting before the event goes out: an answer can never arrive ahead of its waiter.
  const answer = input.broker.wait(input.chatId, callId, timeoutMs, input.signal);
  const timeoutSecs = Math.round(timeoutMs / 1000);
  yield { kind: 'client_tool_call', callId, name: call.name, arguments: call.arguments, timeoutSecs, confirm };
  const outcome = await answer;
  input.signal?.throwIfAborted();
  return outcome;
}

/** The configured choice in the first round; later rounds let the model answer (`auto`), the last one must (`none`). */
function choiceFor(configured: ToolChoice | undefined, round: number, last: boolean): ToolChoice {
  if (last) return { type: 'none' };
  if (configured?.type === 'none') return configured;
  return round === 0 && configured ? configured : { type: 'auto' };
}

/** What the model reads back: the result as JSON, or `{error}`. */
function toolMessage(outcome: ToolOutcome): string {
  return JSON.stringify(outcome.success ? (outcome.result ?? null) : { error: outcome.error ?? 'failed' });
}

function addUsage(sum: Completion['usage'], more: Completion['usage']): Completion['usage'] {
  return {
    prompt_tokens: sum.prompt_tokens + more.prompt_tokens,
    completion_tokens: sum.completion_tokens + more.completion_tokens,
    total_tokens: sum.total_tokens + more.total_tokens,
  };
}
