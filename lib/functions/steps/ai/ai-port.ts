/**
 * The language-model port the Chat and Embed steps call (`x.ai`).
 *
 * lib/functions may not import lib/chat (chat imports functions), so the
 * steps speak this small interface, which mirrors the few members of
 * lib/chat's ChatProvider and Embedder they need; the composition root
 * (lib/http/server.ts, through lib/chat's `functionAi`) supplies it from the
 * providers and the embedder configured in the settings. Failures are the
 * providers' own classified `ProviderFailed`.
 *
 * Without a port (an engine embedded with no chat layer) completions are
 * `provider_not_configured` and embeddings come from the offline embedder.
 */
import { ProviderFailed } from '../../../errors.js';
import { OFFLINE_MODEL, OfflineEmbedder } from '../../../vector/index.js';

export type AiRole = 'system' | 'user' | 'assistant';

export const AI_ROLES: readonly AiRole[] = ['system', 'user', 'assistant'];

export interface AiMessage {
  readonly role: AiRole;
  readonly content: string;
}

export interface AiCompletionRequest {
  /** A provider id (`openai`, `local`...); undefined: the first configured provider, else `local`. */
  readonly provider?: string;
  /** Undefined: the provider's default model. */
  readonly model?: string;
  readonly messages: readonly AiMessage[];
  readonly temperature?: number;
  readonly maxTokens?: number;
}

export interface AiCompletion {
  readonly content: string;
  /** The provider that answered and its model. */
  readonly provider: string;
  readonly model: string;
  /** Prompt and completion tokens together, as the provider counted them. */
  readonly totalTokens: number;
}

export interface AiEmbeddings {
  /** One vector per text, in order. */
  readonly vectors: readonly (readonly number[])[];
  readonly model: string;
}

export interface FunctionAi {
  /** One completion; aborting `signal` cancels the upstream request. */
  complete(req: AiCompletionRequest, signal?: AbortSignal): Promise<AiCompletion>;
  /** Embeddings of `texts` with the configured embedder (`model` undefined: its default). */
  embed(texts: readonly string[], model: string | undefined, signal?: AbortSignal): Promise<AiEmbeddings>;
}

const offline = new OfflineEmbedder();

/** The port when none is supplied: no provider, the offline embedder. */
export const NO_FUNCTION_AI: FunctionAi = Object.freeze({
  complete: async (req: AiCompletionRequest): Promise<AiCompletion> => {
    const provider = req.provider ?? 'local';
    throw new ProviderFailed(`Provider '${provider}' is not configured`, 'provider_not_configured', provider, null);
  },
  embed: async (texts: readonly string[], model: string | undefined): Promise<AiEmbeddings> => {
    if (model !== undefined && model !== OFFLINE_MODEL) {
      throw new ProviderFailed(`Embedding model '${model}' needs a configured provider`, 'provider_not_configured', 'openai', null);
    }
    return { vectors: await offline.embed([...texts]), model: offline.model };
  },
});
