/**
 * Chooses the embedder: an OpenAI-compatible provider when a key or URL is
 * configured (PUT /api/config `openai_api_key` / `openai_api_url`, or env
 * OPENAI_API_KEY / OPENAI_BASE_URL), else the built-in offline embedder,
 * which needs no network and no downloaded weights.
 */
import { OfflineEmbedder, OFFLINE_MODEL, type Embedder } from '../vector/index.js';
import type { Settings } from '../engine/index.js';
import { DEFAULT_OPENAI_URL, OpenAiEmbedder } from './providers/openai-embedder.js';

const offline = new OfflineEmbedder();

export function embedderFor(settings: Pick<Settings, 'openai_api_key' | 'openai_api_url'>, model?: string): Embedder {
  const configured = settings.openai_api_key !== null || settings.openai_api_url !== null;
  if (!configured || model === OFFLINE_MODEL) return offline;
  return new OpenAiEmbedder(settings.openai_api_url ?? DEFAULT_OPENAI_URL, settings.openai_api_key, model);
}
