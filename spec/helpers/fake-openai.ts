/**
 * A fake OpenAI-compatible provider on 127.0.0.1 for tests: `/embeddings`
 * answers deterministic vectors, and `behaviour` makes it fail the way real
 * providers do (401, 402, 429 with Retry-After, 500, garbage).
 */
import http from 'node:http';

export interface FakeProvider {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  behaviour: 'ok' | 401 | 402 | 403 | 429 | 500 | 'garbage';
  close(): Promise<void>;
}

export async function startFakeOpenAi(): Promise<FakeProvider> {
  const fake: FakeProvider = { url: '', requests: [], behaviour: 'ok', close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      fake.requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (fake.behaviour === 'garbage') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"nope":'); return; }
      if (typeof fake.behaviour === 'number') {
        res.writeHead(fake.behaviour, { 'content-type': 'application/json', ...(fake.behaviour === 429 ? { 'retry-after': '7' } : {}) });
        res.end(JSON.stringify({ error: { message: 'fake failure' } }));
        return;
      }
      if (req.url === '/v1/embeddings') {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        const data = inputs.map((text, index) => ({ index, embedding: Array.from({ length: 8 }, (_, i) => ((text.length + i) % 5) / 5) }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', model: body.model, data }));
        return;
      }
      res.writeHead(404);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
