/**
 * chat-message: the server's own time per chat message
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
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '../../lib/http/index.js';
import { ProviderFailed } from '../../lib/errors.js';
import type { ChatProvider, CompletionRequest, ProviderDirectory } from '../../lib/chat/index.js';
import { mulberry32, zipf, vocabulary } from '../lib/seeded-random.js';
import { percentile, report } from '../lib/report.js';

const N = 100_000,
  VOCAB = 5_000,
  STOPWORDS = 20,
  MESSAGES = Number(process.env.BENCH_CHAT_MESSAGES ?? 600),
  PER_SESSION = 20;
const ADMIN = 'bench-chat-admin-key-0123456789';

/** Answers at once: no network, no tokens to wait for. */
const instant: ChatProvider = {
  id: 'openai',
  listModels: async () => ['instant'],
  complete: async (req: CompletionRequest) => ({
    content: 'ok',
    model: 'instant',
    usage: { prompt_tokens: req.messages.length, completion_tokens: 1, total_tokens: req.messages.length + 1 },
  }),
  async *stream() {
    yield {
      kind: 'done',
      completion: {
        content: 'ok',
        model: 'instant',
        usage: { prompt_tokens: 0, completion_tokens: 1, total_tokens: 1 },
      },
    };
  },
};
const providers: ProviderDirectory = {
  get: (id) => {
    if (id !== 'openai')
      throw new ProviderFailed(`LLM provider '${id}' is not configured`, 'provider_not_configured', id, null);
    return instant;
  },
  configured: () => ['openai'],
};

export async function chatMessage(): Promise<void> {
  const u = mulberry32(4321);
  const words = vocabulary(VOCAB, u);
  const rank = zipf(VOCAB, 1, u);
  const sentence = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(u() * (max - min + 1)) }, () => words[rank()]!).join(' ');
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const server = await Server.create({
    port: 0,
    host: '127.0.0.1',
    dataDir: dir,
    adminKey: ADMIN,
    quiet: true,
    providers,
    snapshotCron: '',
    trashPurgeCron: '',
    ttlSweepMs: 0,
    snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  await server.listen();
  try {
    for (let i = 0; i < N; i += 10_000) {
      await server.db.bulk.insertMany(
        'docs',
        Array.from({ length: 10_000 }, (_, k) => ({ n: i + k, title: sentence(3, 8), body: sentence(15, 40) })),
      );
    }
    const auth = (await (
      await fetch(`${server.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: ADMIN }),
      })
    ).json()) as { token: string };
    const headers = { authorization: `Bearer ${auth.token}`, 'content-type': 'application/json' };
    const post = async (route: string, body: unknown) => {
      const r = await fetch(server.url + route, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`${route}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<Record<string, any>>;
    };
    const newSession = async () =>
      (await post('/api/chat', { collections: [{ collection_name: 'docs', fields: [] }], llm_provider: 'openai' }))
        .chat_id as string;
    // Messages as a search engine sees them: 2-4 content words, the most common ranks (stop words) left out.
    const contentWord = () => {
      let r;
      do r = rank();
      while (r < STOPWORDS);
      return words[r]!;
    };
    const texts = Array.from({ length: MESSAGES }, () =>
      Array.from({ length: 2 + Math.floor(u() * 3) }, contentWord).join(' '),
    );
    // Warm-up: builds the text index and the message index, and JITs the path.
    let chat = await newSession();
    for (let i = 0; i < 30; i++) await post(`/api/chat/${chat}/messages`, { message: texts[i % texts.length] });
    const subj: number[] = [],
      ref: number[] = [],
      serverMs: number[] = [],
      overhead: number[] = [];
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
      subject: {
        label: 'POST /api/chat/{id}/messages',
        throughput: 1000 / percentile(subj, 50),
        p50_ms: percentile(subj, 50),
        p99_ms: percentile(subj, 99),
      },
      reference: {
        label: 'POST /api/search/docs (retrieval)',
        throughput: 1000 / percentile(ref, 50),
        p50_ms: percentile(ref, 50),
        p99_ms: percentile(ref, 99),
      },
      ratio: percentile(subj, 50) / percentile(ref, 50),
      ratio_of: 'p50 message time / p50 search time',
      target: 'message p50 < 5 ms',
      extra: {
        records: N,
        messages: MESSAGES,
        snippets_per_message: snippets / MESSAGES,
        execution_time_ms_p50: percentile(serverMs, 50),
        chat_overhead_over_search_p50_ms: percentile(overhead, 50),
      },
      notes:
        'in-process server, sequential requests, an instantly answering provider, durability always (one fsync per ' +
        'exchange)',
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * chat-stream-delay: the delay the server adds between a
 * provider's streamed token and the client receiving it. A fake Chat
 * Completions vendor on loopback (in this process) streams TOKENS tokens,
 * one every TOKEN_GAP_MS, each carrying the `performance.now()` it was
 * written at; the client reads POST /api/chat/{id}/messages/stream and
 * takes the arrival time minus that stamp (one clock, one process). The
 * reference is the same vendor stream read directly by the same client
 * code, so `server_added_p50_ms` is what the server's hop costs: parsing the
 * vendor's SSE, the turn and tool plumbing, the SSE renderer (aim < 1 ms).
 */
const TOKENS = Number(process.env.BENCH_CHAT_STREAM_TOKENS ?? 1000),
  TOKEN_GAP_MS = 2;

async function startPacedVendor(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => void pace(raw, res));
  });
  /** Answers one request: a token every TOKEN_GAP_MS, stamped with the time it was sent. */
  async function pace(raw: string, res: http.ServerResponse): Promise<void> {
    const body = JSON.parse(raw || '{}') as { stream_options?: { include_usage?: boolean } };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', model: 'paced', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (let i = 0; i < TOKENS && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, TOKEN_GAP_MS));
      res.write(chunk({ content: `${performance.now().toFixed(4)} ` }));
    }
    res.write(chunk({}, 'stop'));
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', model: 'paced', choices: [], usage: { prompt_tokens: 1, completion_tokens: TOKENS, total_tokens: TOKENS + 1 } })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** POSTs and reads SSE `data:` lines, calling `onData` with each parsed payload as it arrives. */
function readSse(url: string, headers: Record<string, string>, body: unknown, onData: (d: any) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      { method: 'POST', headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' } },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line.startsWith('data:') && line !== 'data: [DONE]') onData(JSON.parse(line.slice(5)));
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const stampOf = (text: string | undefined): number | undefined => {
  const n = Number.parseFloat(text ?? '');
  return Number.isFinite(n) ? n : undefined;
};

export async function chatStreamDelay(): Promise<void> {
  const vendor = await startPacedVendor();
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const server = await Server.create({
    port: 0,
    host: '127.0.0.1',
    dataDir: dir,
    adminKey: ADMIN,
    quiet: true,
    snapshotCron: '',
    trashPurgeCron: '',
    ttlSweepMs: 0,
    snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  await server.listen();
  try {
    const auth = (await (
      await fetch(`${server.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: ADMIN }),
      })
    ).json()) as { token: string };
    const headers = { authorization: `Bearer ${auth.token}` };
    const call = async (method: string, route: string, body: unknown) => {
      const r = await fetch(server.url + route, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${route}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<Record<string, any>>;
    };
    await call('PUT', '/api/config', { openai_api_key: 'sk-bench', openai_api_url: vendor.url });
    const chat = (await call('POST', '/api/chat', { collections: [], llm_provider: 'openai' })).chat_id as string;
    const subj: number[] = [],
      ref: number[] = [];
    // Reference first: the vendor stream read directly.
    await readSse(
      `${vendor.url}/chat/completions`,
      {},
      { model: 'paced', stream: true, messages: [{ role: 'user', content: 'go' }] },
      (d) => {
        const at = stampOf(d.choices?.[0]?.delta?.content);
        if (at !== undefined) ref.push(performance.now() - at);
      },
    );
    let done = false;
    await readSse(`${server.url}/api/chat/${chat}/messages/stream`, headers, { message: 'go' }, (d) => {
      const at = stampOf(d.token);
      if (at !== undefined) subj.push(performance.now() - at);
      if (d.message_id) done = true;
    });
    if (!done || subj.length < TOKENS * 0.99)
      throw new Error(`chat-stream-delay: the stream ended early (${subj.length} tokens, done=${done})`);
    subj.sort((a, b) => a - b);
    ref.sort((a, b) => a - b);
    report({
      scenario: 'chat-stream-delay',
      subject: { label: 'token via /messages/stream', p50_ms: percentile(subj, 50), p99_ms: percentile(subj, 99) },
      reference: {
        label: 'token read from the vendor directly',
        p50_ms: percentile(ref, 50),
        p99_ms: percentile(ref, 99),
      },
      ratio: percentile(subj, 50) / Math.max(percentile(ref, 50), 1e-6),
      ratio_of: 'p50 delay through the server / p50 delay direct',
      target: 'server-added p50 < 1 ms',
      extra: {
        tokens: TOKENS,
        token_gap_ms: TOKEN_GAP_MS,
        server_added_p50_ms: percentile(subj, 50) - percentile(ref, 50),
        server_added_p99_ms: percentile(subj, 99) - percentile(ref, 99),
      },
      notes: 'vendor, server and client in one process on loopback (one clock); sequential streams, reference first',
    });
  } finally {
    await server.close();
    await vendor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
