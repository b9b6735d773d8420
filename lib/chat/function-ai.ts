/**
 * The language-model port of stored functions (lib/functions FunctionAi,
 * what the Chat and Embed steps call), made from this layer's providers and
 * embedder. The server builds it from the providers configured in the
 * settings, so a key changed through PUT /api/config applies to the next
 * call. A request naming no provider goes to the first configured one, else
 * the offline `local` provider, as raw completion does.
 */
import type { FunctionAi } from '../functions/index.js';
import type { Embedder } from '../vector/index.js';
import type { ProviderDirectory } from './providers/provider.js';
import { pickProvider } from './providers/directory.js';

export function functionAi(providers: ProviderDirectory, embedder: (model?: string) => Embedder): FunctionAi {
  return {
    async complete(req, signal) {
      const provider = pickProvider(providers, req.provider);
      const completion = await provider.complete(
        {
          messages: req.messages,
          ...(req.model !== undefined ? { model: req.model } : {}),
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
        },
        signal,
      );
      return {
        content: completion.content,
        provider: provider.id,
        model: completion.model,
        totalTokens: completion.usage.total_tokens,
      };
    },
    async embed(texts, model, signal) {
      const chosen = embedder(model);
      return { vectors: await chosen.embed([...texts], signal), model: chosen.model };
    },
  };
}
