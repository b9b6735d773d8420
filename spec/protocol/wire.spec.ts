/**
 * The inventory through a real server: what served.ts says is served must be
 * reachable over HTTP and WebSocket, including what the transports serve in
 * front of the tables (SSE subscriptions, the WebSocket endpoint, Hello and
 * Subscribe). "Reachable" means answered by something other than the
 * server's own unknown-route or unknown-type answer, learnt at the start from
 * a route and a type no protocol has; a 400 or a 404 of the route itself
 * (say "Record not found") counts, since only routing is checked here.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer } from '../helpers/test-server.js';
import { MESSAGE_INVENTORY, ROUTE_INVENTORY } from './inventory.js';

const NO_SUCH_ROUTE = '/api/no-such-area-for-protocol-check';
const NO_SUCH_TYPE = 'NoSuchMessageTypeForProtocolCheck';

/** A concrete request path for an inventory pattern: each parameter becomes a plain value. */
function examplePath(pattern: string): string {
  return pattern.replace(/\{\w+\.\.\.\}/g, 'a/b').replace(/\{\w+\}/g, 'protocol-check');
}

interface Answer {
  status: number;
  text: string;
}

async function send(t: TestServer, method: string, path: string): Promise<Answer> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${await t.adminToken()}`,
    Accept: 'application/json',
  };
  const hasBody = method !== 'GET';
  if (hasBody) headers['Content-Type'] = 'application/json';
  const abort = new AbortController();
  const res = await fetch(t.url + path, { method, headers, body: hasBody ? '{}' : undefined, signal: abort.signal });
  // A stream (SSE) never ends by itself: its status and headers are the answer.
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    abort.abort();
    return { status: res.status, text: '' };
  }
  return { status: res.status, text: await res.text() };
}

/** A WebSocket client that sends one request at a time and waits for the reply with its messageId. */
class WsClient {
  private n = 0;
  private constructor(readonly ws: WebSocket) {}

  static async connect(t: TestServer, path: string): Promise<WsClient> {
    const ws = new WebSocket(t.url.replace(/^http/, 'ws') + path, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new WsClient(ws);
  }

  /** The first frame answering `frame`: the one echoing its messageId, or the next one when it carries none. */
  request(type: string, payload: unknown, withMessageId = true): Promise<any> {
    const messageId = withMessageId ? `p${++this.n}` : undefined;
    return new Promise((resolve) => {
      const onMessage = (data: Buffer) => {
        const msg = JSON.parse(data.toString());
        if (messageId !== undefined && msg.messageId !== messageId) return;
        this.ws.off('message', onMessage);
        resolve(msg);
      };
      this.ws.on('message', onMessage);
      this.ws.send(JSON.stringify({ type, payload, ...(messageId === undefined ? {} : { messageId }) }));
    });
  }

  close(): void {
    this.ws.close();
  }
}

describe('protocol inventory over the wire', function () {
  this.timeout(30_000);
  let t: TestServer;
  /** The server's answer to a route nobody serves, with `<route>` where it names the request. */
  let unrouted: { status: number; template: string };

  before(async () => {
    t = await TestServer.start();
    const probe = await send(t, 'GET', NO_SUCH_ROUTE);
    unrouted = { status: probe.status, template: probe.text.split(`GET ${NO_SUCH_ROUTE}`).join('<route>') };
  });
  after(async () => {
    await t?.stop();
  });

  const isUnrouted = (method: string, path: string, a: Answer) =>
    a.status === 405 ||
    (a.status === unrouted.status && a.text === unrouted.template.split('<route>').join(`${method} ${path}`));

  describe('HTTP routes', () => {
    for (const { method, path, section } of ROUTE_INVENTORY) {
      if (section === '1.1') continue; // the WebSocket endpoint, below
      const route = `${method} ${path}`;
      const concrete = examplePath(path);
      it(`routes ${method} ${concrete}${concrete === path ? '' : ` (${path})`}`, async () => {
        const a = await send(t, method, concrete);
        expect(
          isUnrouted(method, concrete, a),
          `${route} (protocol.md ${section}) is not served: ${a.status} ${a.text}`,
        ).to.equal(false);
      });
    }
  });

  describe('WebSocket', () => {
    const endpoint = ROUTE_INVENTORY.find((r) => r.section === '1.1')!;
    let client: WsClient;
    /** The server's answer to a type nobody serves, with `<type>` where it names it. */
    let unknownType: string;

    before(async () => {
      client = await WsClient.connect(t, endpoint.path);
      const reply = await client.request(NO_SUCH_TYPE, {});
      unknownType = JSON.stringify({ ...reply, messageId: undefined })
        .split(NO_SUCH_TYPE)
        .join('<type>');
    });
    after(() => client?.close());

    it(`accepts connections at ${endpoint.path} and answers Hello with Welcome`, async () => {
      const welcome = await client.request('Hello', { formats: ['json'] }, false);
      expect(welcome).to.deep.equal({ type: 'Welcome', payload: { format: 'json' } });
    });

    for (const { type } of MESSAGE_INVENTORY) {
      if (type === 'Hello') continue; // answered without a messageId, above
      it(`answers ${type} as a known message type`, async () => {
        const reply = await client.request(type, {});
        const asUnknown = unknownType.split('<type>').join(type);
        expect(
          JSON.stringify({ ...reply, messageId: undefined }),
          `${type} (protocol.md 3.4) is not served`,
        ).to.not.equal(asUnknown);
      });
    }
  });
});
