/**
 * A stand-in OpenAI-compatible server on 127.0.0.1 whose streamed answers wait: each completion sends its first
 * words at once, then holds the stream open until the test calls `release()`. The console's specs use it to see
 * an answer on screen while its stream is still open, and to stop one midway. Nothing leaves the machine.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SLOW_MODEL = 'slow-model';
export const FIRST_WORDS = 'The first words arrive';
export const LAST_WORDS = ' and the rest follows later.';

export interface SlowProvider {
  /** The server's root, for `openai_compatible_url`. */
  url: string;
  /** Lets every held stream finish. */
  release(): void;
  close(): Promise<void>;
}

const chunk = (res: ServerResponse, body: unknown) => res.write(`data: ${JSON.stringify(body)}\n\n`);

export async function startSlowProvider(): Promise<SlowProvider> {
  let open: (() => void)[] = [];
  const server = createServer((req, res) => {
    req.resume();
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: SLOW_MODEL, object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.statusCode = 404;
      res.end('{}');
      return;
    }
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      chunk(res, { choices: [{ index: 0, delta: { content: FIRST_WORDS } }] });
      open.push(() => {
        if (res.destroyed) return;
        chunk(res, { choices: [{ index: 0, delta: { content: LAST_WORDS }, finish_reason: 'stop' }] });
        res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    release() {
      const held = open;
      open = [];
      for (const finish of held) finish();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
