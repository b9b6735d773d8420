/**
 * Chat providers over HTTP (protocol.md 2.12): the models listing with each
 * provider's status, one provider's model list, and the stateless raw
 * completion, whole (`POST /api/chat/complete`) or streamed as SSE `data:`
 * frames (`POST /api/chat/complete/stream`): `{token}` per chunk, then
 * `{content, done: true}`; a provider failure is the final error frame with
 * the classified fields. The client going away aborts the upstream request.
 *
 * Without `provider` a completion goes to the default provider: the first
 * configured of openai, anthropic, perplexity, openai_compatible, else the
 * offline `local` one (lib/chat/providers/directory.ts).
 */
import { InvalidInput } from '../../../errors.js';
import {
  isProviderId,
  pickProvider,
  PROVIDER_IDS,
  PROVIDER_SETTING_KEYS,
  probeProvider,
  probeProviders,
  providerNotConfigured,
  SettingsProviderDirectory,
  type ChatMessage,
  type ChatProvider,
  type CompletionRequest,
  type ProviderStatusEntry,
} from '../../../chat/index.js';
import { rejectUnknownMembers } from '../../../engine/index.js';
import { defineProcedure, type RawInput, type StreamEvent } from '../procedure.js';
import { bodyObject, optionalString, param } from '../input.js';
import type { Context } from '../context.js';
import { Type } from '../shapes.js';
import { CompleteRequest, Completion, CompletionEvent, ProviderStatus } from './chat-shapes.js';

/**
 * Status probes wait at most this long per provider, so one silent vendor cannot hold the listing for a whole
 * completion timeout.
 */
export const PROBE_TIMEOUT_MS = 10_000;

function probeDirectory(ctx: Context): SettingsProviderDirectory {
  return new SettingsProviderDirectory(() => {
    const settings = ctx.config.settings();
    return { ...settings, provider_timeout_ms: Math.min(settings.provider_timeout_ms, PROBE_TIMEOUT_MS) };
  });
}

export const chatModelsList = defineProcedure({
  name: 'chat.models',
  kind: 'query',
  access: 'user',
  schema: {
    summary: "Every provider's models and status",
    description: 'Each configured provider is asked at once (at most 10 s each); an unconfigured one lists none.',
    response: Type.Object(
      { providers: Type.Object({}, { additionalProperties: ProviderStatus }) },
      { additionalProperties: Type.Array(Type.String()), description: 'Model lists by provider id, and providers.' },
    ),
  },
  input: () => undefined,
  handler: async (_i, ctx) => {
    const probes = await probeProviders(probeDirectory(ctx));
    const out: Record<string, unknown> = {};
    const providers: Record<string, ProviderStatusEntry> = {};
    for (const id of PROVIDER_IDS) {
      const probe = probes.get(id)!;
      out[id] = probe.models;
      providers[id] = probe.entry;
    }
    out.providers = providers;
    return out;
  },
});

export const chatModelsGet = defineProcedure({
  name: 'chat.models.provider',
  kind: 'query',
  access: 'user',
  schema: {
    summary: "One provider's models",
    description: 'An unknown or unconfigured provider is 404 provider_not_configured; a failure, its classified body.',
    response: Type.Array(Type.String()),
  },
  input: (raw) => param(raw, 'provider'),
  handler: async (id, ctx) => {
    const directory = probeDirectory(ctx);
    // Unknown and unconfigured alike: 404 with the classified provider_not_configured body.
    if (!isProviderId(id) || !directory.configured().includes(id)) throw providerNotConfigured(id, true);
    return directory.get(id).listModels();
  },
});

interface CompleteInput {
  readonly provider: string | undefined;
  readonly request: CompletionRequest;
}

const COMPLETE_MEMBERS = [
  'system_prompt',
  'message',
  'provider',
  'model',
  'max_tokens',
  'temperature',
  'bypass_ripple',
];

function completeInput(raw: RawInput): CompleteInput {
  const body = bodyObject(raw);
  rejectUnknownMembers(body, COMPLETE_MEMBERS);
  const message = body.message;
  if (typeof message !== 'string' || message.trim() === '')
    throw new InvalidInput("'message' is required: a non-empty string");
  const system = optionalString(body, 'system_prompt');
  const maxTokens = body.max_tokens ?? undefined;
  if (
    maxTokens !== undefined &&
    (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 1_000_000)
  ) {
    throw new InvalidInput("'max_tokens' must be an integer between 1 and 1000000");
  }
  const temperature = body.temperature ?? undefined;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
    throw new InvalidInput("'temperature' must be a number between 0 and 2");
  }
  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: message });
  const model = optionalString(body, 'model') || undefined;
  return {
    provider: optionalString(body, 'provider') || undefined,
    request: {
      messages,
      ...(model ? { model } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    },
  };
}

/** The server's one provider directory (the one chat sessions and the Chat step use). */
function providerFor(input: CompleteInput, ctx: Context): ChatProvider {
  return pickProvider(ctx.chat.providers, input.provider);
}

export const chatComplete = defineProcedure({
  name: 'chat.complete',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'A raw completion, no session',
    description:
      'Without provider: the first configured of openai, anthropic, perplexity, openai_compatible, else local.',
    body: CompleteRequest,
    response: Completion,
  },
  input: completeInput,
  handler: async (input, ctx) => {
    const provider = providerFor(input, ctx);
    const { content, model, usage } = await provider.complete(input.request, ctx.signal);
    return { content, provider: provider.id, model, token_usage: usage };
  },
});

export const chatCompleteStream = defineProcedure({
  name: 'chat.completeStream',
  kind: 'stream',
  access: 'user',
  schema: {
    summary: 'A raw completion, streamed (server-sent events)',
    description:
      '`data:` lines: {token} per chunk, then {content, done: true, ...}; a failure is an `event: error` frame.',
    body: CompleteRequest,
    response: CompletionEvent,
  },
  input: completeInput,
  // The provider is resolved before the stream opens: an unknown or unconfigured one is a plain 400 answer.
  handler: (input, ctx): AsyncIterable<StreamEvent> =>
    completionEvents(providerFor(input, ctx), input.request, ctx.signal),
});

async function* completionEvents(
  provider: ChatProvider,
  request: CompletionRequest,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  for await (const chunk of provider.stream(request, signal)) {
    if (signal.aborted) return;
    if (chunk.kind === 'token') yield { event: 'token', data: { token: chunk.text } };
    else {
      const { content, model, usage } = chunk.completion;
      yield { event: 'done', data: { content, done: true, provider: provider.id, model, token_usage: usage } };
    }
  }
}

/** Probes the providers whose settings `changed` names, for PUT /api/config's `provider_checks`. */
export async function providerChecks(
  ctx: Context,
  changed: readonly string[],
): Promise<Record<string, ProviderStatusEntry> | undefined> {
  const ids = (Object.keys(PROVIDER_SETTING_KEYS) as Array<keyof typeof PROVIDER_SETTING_KEYS>).filter((id) =>
    PROVIDER_SETTING_KEYS[id].some((k) => changed.includes(k)),
  );
  if (ids.length === 0) return undefined;
  const directory = probeDirectory(ctx);
  const entries = await Promise.all(ids.map(async (id) => [id, (await probeProvider(directory, id)).entry] as const));
  return Object.fromEntries(entries);
}
