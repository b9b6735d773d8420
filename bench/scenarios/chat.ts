/**
 * chat-message (issue 13 item 7): the server's own time per chat message
 * (retrieval over 100,000 records, prompt building, storing the exchange)
 * against a provider that answers instantly, so the provider costs nothing.
 * Measured as the HTTP round trip of POST /api/chat/{id}/messages on a
 * server in this process, one request at a time (aim: p50 under 5 ms). The
 * reference is the retrieval alone: POST /api/search/docs with the same
 * texts on the same server; `chat_overhead_over_search_p50_ms` is the
 * median of the per-message differences (prompt, provider call, storage,
 * HTTP body). Messages are 2-4 content words, as in text-search. Durability is the default (`always`: each
 * exchange waits for its fsync). A session takes 20 messages, then the next
 * one starts, so the replayed history stays at a conversation's size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '../../lib/http/index.js';
import { ProviderFailed } from '../../lib/errors.js';
import type { ChatProvider, CompletionRequest, ProviderDirectory } from '../../lib/chat/index.js';
import { mulberry32, zipf, vocabulary } from '../lib/seeded-random.js';
import { percentile, report } from '../lib/report.js';

const N = 100_000, VOCAB = 5_000, STOPWORDS = 20, MESSAGES = Number(process.env.BENCH_CHAT_MESSAGES ?? 600), PER_SESSION = 20;
const ADMIN = 'bench-chat-admin-key-0123456789';

/** Answers at once: no network, no tokens to wait for. */
const instant: ChatProvider = {
  id: 'openai',
  listModels: async () => ['instant'],
  complete: async (req: CompletionRequest) => ({
    content: 'ok', model: 'instant', usage: { prompt_tokens: req.messages.length, completion_tokens: 1, total_tokens: req.messages.length + 1 },
  }),
  async *stream() { yield { kind: 'done', completion: { content: 'ok', model: 'instant', usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1 } } }; },
};
const providers: ProviderDirectory = {
  get: (id) => {
    if (id !== 'openai') throw new ProviderFailed(`LLM provider '${id}' is not configured`, 'provider_not_configured', id, null);
    return instant;
  },
  configured: () => ['openai'],
};

export async function chatMessage(): Promise<void> {
  const u = mulberry32(4321);
  const words = vocabulary(VOCAB, u);
  const rank = zipf(VOCAB, 1, u);
  const sentence = (min: number, max: number) => Array.from({ length: min + Math.floor(u() * (max - min + 1)) }, () => words[rank()]!).join(' ');
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const server = await Server.create({
    port: 0, host: '127.0.0.1', dataDir: dir, adminKey: ADMIN, quiet: true, providers,
    snapshotCron: '', trashPurgeCron: '', ttlSweepMs: 0, snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  await server.listen();
  try {
    for (let i = 0; i < N; i += 10_000) {
      await server.db.bulk.insertMany('docs', Array.from({ length: 10_000 }, (_, k) => ({ n: i + k, title: sentence(3, 8), body: sentence(15, 40) })));
    }
    const auth = await (await fetch(`${server.url}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: ADMIN }) })).json() as { token: string };
    const headers = { authorization: `Bearer ${auth.token}`, 'content-type': 'application/json' };
    const post = async (route: string, body: unknown) => {
      const r = await fetch(server.url + route, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`${route}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<Record<string, any>>;
    };
    const newSession = async () => (await post('/api/chat', { collections: [{ collection_name: 'docs', fields: [] }], llm_provider: 'openai' })).chat_id as string;
    // Messages as a search engine sees them: 2-4 content words, the most common ranks (stop words) left out.
    const contentWord = () => { let r; do r = rank(); while (r < STOPWORDS); return words[r]!; };
    const texts = Array.from({ length: MESSAGES }, () => Array.from({ length: 2 + Math.floor(u() * 3) }, contentWord).join(' '));
    // Warm-up: builds the text index and the message index, and JITs the path.
    let chat = await newSession();
    for (let i = 0; i < 30; i++) await post(`/api/chat/${chat}/messages`, { message: texts[i % texts.length] });
    const subj: number[] = [], ref: number[] = [], serverMs: number[] = [], overhead: number[] = [];
    let snippets = 0;
    for (let i = 0; i < MESSAGES; i++) {
      if (i % PER_SESSION === 0) chat = await newSession();
      // Alternate subject and reference so both see the same machine.
      let t0 = performance.now();
      const answer = await post(`/api/chat/${chat}/messages`, { message: texts[i] });
      subj.push(performance.now() - t0);
      serverMs.push(answer.execution_time_ms);
      snippets += answer.context_snippets.length;
      t0 = performance.now();
      await post('/api/search/docs', { query: texts[i], limit: 5 });
      ref.push(performance.now() - t0);
      overhead.push(subj.at(-1)! - ref.at(-1)!);
    }
    for (const list of [subj, ref, serverMs, overhead]) list.sort((a, b) => a - b);
    report({
      scenario: 'chat-message',
      subject: { label: 'POST /api/chat/{id}/messages', throughput: 1000 / percentile(subj, 50), p50_ms: percentile(subj, 50), p99_ms: percentile(subj, 99) },
      reference: { label: 'POST /api/search/docs (retrieval)', throughput: 1000 / percentile(ref, 50), p50_ms: percentile(ref, 50), p99_ms: percentile(ref, 99) },
      ratio: percentile(subj, 50) / percentile(ref, 50), ratio_of: 'p50 message time / p50 search time', target: 'message p50 < 5 ms',
      extra: { records: N, messages: MESSAGES, snippets_per_message: snippets / MESSAGES, execution_time_ms_p50: percentile(serverMs, 50),
        chat_overhead_over_search_p50_ms: percentile(overhead, 50) },
      notes: 'in-process server, sequential requests, an instantly answering provider, durability always (one fsync per exchange)',
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
