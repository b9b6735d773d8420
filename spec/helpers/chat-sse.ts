/**
 * A chat SSE client for specs, reading the way the ekoDB clients do: a
 * POST with a JSON body and `Accept: text/event-stream`, then only `data:`
 * lines (JSON) count; comment lines are kept apart to see heartbeats.
 */
import http from 'node:http';
import { TestServer } from './test-server.js';
import { startFakeOpenAi } from './fake-openai.js';
import type { FakeVendor } from './fake-vendor.js';

export interface ChatSse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed `data:` payloads, in order. */
  data: any[];
  /** Comment lines (`: ...`). */
  comments: string[];
  /** The body text of a non-2xx answer. */
  text: string;
  /** Resolves when the server ends the response (or the request fails). */
  ended: Promise<void>;
  /** Resolves once the head has arrived. */
  opened: Promise<void>;
  close(): void;
}

export function postChatSse(url: string, token: string, body: unknown): ChatSse {
  const out: ChatSse = {
    status: 0,
    headers: {},
    data: [],
    comments: [],
    text: '',
    ended: Promise.resolve(),
    opened: Promise.resolve(),
    close: () => undefined,
  };
  let opened!: () => void;
  out.opened = new Promise((r) => {
    opened = r;
  });
  out.ended = new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          accept: 'text/event-stream',
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        out.status = res.statusCode ?? 0;
        out.headers = res.headers;
        opened();
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (out.status >= 300) {
            out.text += chunk;
            return;
          }
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line.startsWith('data:')) out.data.push(JSON.parse(line.slice(5).trim()));
            else if (line.startsWith(':')) out.comments.push(line);
          }
        });
        res.on('end', resolve);
        res.on('error', () => resolve());
        res.on('close', resolve);
      },
    );
    req.on('error', () => {
      opened();
      resolve();
    });
    req.end(payload);
    out.close = () => req.destroy();
  });
  return out;
}

export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A real server with fast SSE heartbeats, a fake OpenAI vendor, and the admin token (the chat stream specs' setup). */
export async function startChatStreamServers(): Promise<{ t: TestServer; openai: FakeVendor; token: string }> {
  const t = await TestServer.start({ sseHeartbeatMs: 20 });
  const openai = await startFakeOpenAi();
  return { t, openai, token: await t.adminToken() };
}
