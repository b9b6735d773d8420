/**
 * A fake Perplexity on 127.0.0.1: OpenAI-style `/chat/completions` at the
 * root (no `/v1`), and no models endpoint, as the real one.
 */
import { startFakeOpenAi, type FakeProvider } from './fake-openai.js';

export function startFakePerplexity(): Promise<FakeProvider> {
  return startFakeOpenAi({ prefix: '', models: false });
}
