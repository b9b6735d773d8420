/**
 * The shared part of the fake LLM vendors (fake-openai.ts, fake-anthropic.ts,
 * fake-perplexity.ts): a real HTTP server on 127.0.0.1 that records every
 * request, fails the way real providers do when `behaviour` says so, and
 * counts requests whose client went away before the answer ended
 * (`aborted`), so specs can see a cancel reach the upstream request.
 *
 * Behaviours: 'ok'; an HTTP status (401, 402, 403, 429 with Retry-After 7,
 * 500, or any other) with a JSON error body; 'insufficient_quota' (OpenAI's
 * 429 whose code means billing); 'garbage' (200 with a body that is not
 * JSON); 'hang' (never answers: timeouts); 'broken_stream' (a stream that
 * sends two chunks, then the connection is cut); 'truncated_stream' (two
 * chunks, then a clean end without the final event); 'stall_stream' (two
 * chunks, then silence). `tokenDelayMs` paces streamed chunks.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour =
  'ok' | number | 'garbage' | 'insufficient_quota' | 'hang' | 'broken_stream' | 'truncated_stream' | 'stall_stream';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeVendor {
  /** The base URL adapters are given. */
  url: string;
  requests: RecordedRequest[];
  behaviour: Behaviour;
  /** The text answers say (split into words when streamed). */
  reply: string;
  /** When set, answers ask for this tool call instead of replying with text. */
  toolCall: { name: string; arguments: Record<string, unknown> } | undefined;
  tokenDelayMs: number;
  /** Requests whose client closed the connection before the answer ended. */
  aborted: number;
  /** Resolves once `aborted` reaches `n`. */
  waitAborted(n?: number): Promise<void>;
  close(): Promise<void>;
}

/** What a vendor's handler gets: the parsed request, the fake's state, and a writer for streams. */
export interface VendorCall {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  readonly path: string;
  readonly body: any;
  readonly fake: FakeVendor;
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /**
   * Writes SSE frames with the fake's pacing and stream behaviours; `frames` are whole `data:` payloads or raw lines.
   */
  stream(frames: string[], last: string[]): Promise<void>;
}

export type VendorHandler = (call: VendorCall) => void | Promise<void>;

/** The vendor's error body for a status (`errorBody`), as it would send it. */
export type ErrorBodyOf = (status: number, behaviour: Behaviour) => unknown;

export async function startFakeVendor(
  prefix: string,
  handler: VendorHandler,
  errorBody: ErrorBodyOf,
): Promise<FakeVendor> {
  const sockets = new Set<Socket>();
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const fake: FakeVendor = {
    url: '',
    requests: [],
    behaviour: 'ok',
    reply: 'Hello from the fake provider',
    toolCall: undefined,
    tokenDelayMs: 0,
    aborted: 0,
    waitAborted: (n = 1) =>
      new Promise((resolve) => {
        if (fake.aborted >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      let body: any = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = raw;
      }
      const path = req.url ?? '';
      fake.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      res.on('close', () => {
        if (res.writableFinished) return;
        fake.aborted++;
        waiters = waiters.filter((w) => (fake.aborted >= w.n ? (w.resolve(), false) : true));
      });
      const call: VendorCall = {
        req,
        res,
        path: path.startsWith(prefix) ? path.slice(prefix.length) : path,
        body,
        fake,
        json: (status, b, headers = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(b));
        },
        stream: (frames, last) => writeStream(res, fake, frames, last),
      };
      const b = fake.behaviour;
      if (b === 'hang') return;
      if (b === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"nope":');
        return;
      }
      if (b === 'insufficient_quota') {
        call.json(429, errorBody(429, b));
        return;
      }
      if (typeof b === 'number') {
        call.json(b, errorBody(b, b), b === 429 ? { 'retry-after': '7' } : {});
        return;
      }
      void Promise.resolve(handler(call)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  fake.close = () =>
    new Promise((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fake;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writeStream(
  res: http.ServerResponse,
  fake: FakeVendor,
  frames: string[],
  last: string[],
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const b = fake.behaviour;
  const cut = b === 'broken_stream' || b === 'truncated_stream' || b === 'stall_stream';
  const body = cut ? frames.slice(0, 2) : [...frames, ...last];
  for (const f of body) {
    if (res.destroyed) return;
    res.write(f.endsWith('\n\n') ? f : `data: ${f}\n\n`);
    if (fake.tokenDelayMs) await sleep(fake.tokenDelayMs);
  }
  // Cut once the head and first chunks are out (destroying at once could drop them unsent).
  if (b === 'broken_stream') {
    await sleep(50);
    res.socket?.destroy();
    return;
  }
  if (b === 'stall_stream') return;
  res.end();
}
