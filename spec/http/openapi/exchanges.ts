/**
 * Requests to a real server whose bodies and answers are checked against
 * the server's own OpenAPI document: each answer (success or error) against
 * the response schema of its route and status, and each body the server
 * accepted against the route's request body schema. Mismatches are kept and
 * reported per test; the routes answered are counted, for the coverage
 * check at the end.
 */
import http from 'node:http';
import { openApiPath, type OpenApiDocument } from '../../../lib/http/openapi/index.js';
import { routeFor } from '../../protocol/served.js';
import { TestServer, type Reply, type RequestOptions } from '../../helpers/test-server.js';
import { RouteValidators } from './schema-validator.js';

/** Another server to send to (a test server of eddydb/testing): its URL and a token. */
export interface Target {
  readonly url: string;
  readonly token: string;
}

export interface CallOptions extends RequestOptions {
  /** The status the test needs to go on; another one fails the call at once. */
  expect?: number;
  /** Send to this server instead (JSON, its token unless `token` says otherwise). */
  target?: Target;
}

/** What an SSE stream sent before it was closed. */
export interface StreamAnswer {
  status: number;
  events: Array<{ event: string; data: unknown }>;
  text: string;
}

export class Exchanges {
  /** `GET /api/find/{collection}/{id}` for every route answered, with `200`... per status. */
  readonly answered = new Map<string, Set<number>>();
  /** The routes (as `answered` names them) with a body the server took and the document's schema accepted. */
  readonly bodiesAccepted = new Set<string>();
  private mismatches: string[] = [];
  private validators!: RouteValidators;
  t!: TestServer;

  async start(): Promise<void> {
    this.t = await TestServer.start({ memory: true });
    const doc = await this.t.request<OpenApiDocument>('GET', '/api/openapi.json', undefined, { token: null });
    this.validators = new RouteValidators(doc.body);
  }

  async stop(): Promise<void> {
    await this.t.stop();
  }

  /** Sends a request (JSON, the admin token unless `token` says otherwise) and checks body and answer. */
  async call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Reply<T>> {
    const reply = opts.target
      ? await send<T>(opts.target, method, path, body, opts)
      : await this.t.request<T>(method, path, body, opts);
    const route = this.route(method, path);
    if (route === undefined) this.checkError(reply.status, reply.body, `${method} ${path}`);
    else this.check(route, reply.status, reply.body, `${method} ${path}`);
    if (route !== undefined && reply.status < 300 && body !== undefined && (opts.format ?? 'json') === 'json') {
      this.checkBody(method, path, route, body);
    }
    if (opts.expect !== undefined && reply.status !== opts.expect) {
      throw new Error(`${method} ${path}: expected ${opts.expect}, got ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    return reply;
  }

  /**
   * Opens an SSE stream, reads events until `until` says enough (or `ms` pass), closes it, and checks each event's
   * data against the route's event schema (`error` events against the error body).
   */
  async stream(
    method: string,
    path: string,
    body: unknown,
    until: (events: StreamAnswer['events']) => boolean,
    ms = 5000,
  ): Promise<StreamAnswer> {
    const token = await this.t.adminToken();
    const answer = await readSse(this.t.url + path, method, token, body, until, ms);
    const route = this.route(method, path)!;
    if (answer.status !== 200) {
      this.check(route, answer.status, JSON.parse(answer.text), `${method} ${path}`);
      return answer;
    }
    this.answered.get(`${method} ${route}`)?.add(200) ?? this.answered.set(`${method} ${route}`, new Set([200]));
    if (body !== undefined) this.checkBody(method, path, route, body);
    const validate = this.validators.event(method, route)!;
    for (const { event, data } of answer.events) {
      if (event === 'error') this.check(route, 500, data, `${method} ${path} error event`);
      else if (!validate(data)) this.report(`${method} ${path} event ${event}`, validate.errors, data);
    }
    return answer;
  }

  /** A GET answered with a file (a backup): its status and Content-Type against the document. */
  async download(path: string): Promise<{ status: number; contentType: string; bytes: number }> {
    const res = await fetch(this.t.url + path, { headers: { Authorization: `Bearer ${await this.t.adminToken()}` } });
    const bytes = (await res.arrayBuffer()).byteLength;
    const contentType = res.headers.get('content-type') ?? '';
    const route = this.route('GET', path)!;
    this.answered.get(`GET ${route}`)?.add(res.status) ?? this.answered.set(`GET ${route}`, new Set([res.status]));
    const media = this.validators.media('GET', route, res.status).map((type) => type.split(';')[0]!.trim());
    if (!media.includes(contentType.split(';')[0]!.trim())) {
      this.mismatches.push(`GET ${path}: ${res.status} ${contentType} is not among ${media.join(', ')}`);
    }
    return { status: res.status, contentType, bytes };
  }

  /** Every route whose operation documents a request body, as `answered` names them. */
  documentedBodies(): string[] {
    return this.validators.routesWithBodies();
  }

  /** Throws, listing the mismatches found since the last call. */
  assertClean(): void {
    const found = this.mismatches;
    this.mismatches = [];
    if (found.length > 0) throw new Error(`answers that do not fit the document:\n${found.join('\n')}`);
  }

  /** A body the server took, against the route's request body schema. */
  private checkBody(method: string, path: string, route: string, body: unknown): void {
    const validate = this.validators.body(method, route);
    if (!validate) this.mismatches.push(`${method} ${path}: a body was taken but the route documents none`);
    else if (!validate(body)) this.report(`${method} ${path} request body`, validate.errors, body);
    else this.bodiesAccepted.add(`${method} ${route}`);
  }

  /** The route serving `method path`, in OpenAPI form; undefined when none does (a 404 or 405 answer). */
  private route(method: string, path: string): string | undefined {
    const q = path.indexOf('?');
    const chosen = routeFor(method, q < 0 ? path : path.slice(0, q));
    return chosen && openApiPath(chosen.path);
  }

  /** An answer no route gave (404, 405): the error body. */
  private checkError(status: number, body: unknown, what: string): void {
    if (status < 400) this.mismatches.push(`${what}: ${status} from no route`);
    else if (!this.validators.error(body)) this.report(`${what} -> ${status}`, this.validators.error.errors, body);
  }

  private check(route: string, status: number, body: unknown, what: string): void {
    const key = `${what.split(' ')[0]} ${route}`;
    const statuses = this.answered.get(key) ?? new Set<number>();
    statuses.add(status);
    this.answered.set(key, statuses);
    const validate = this.validators.response(what.split(' ')[0]!, route, status);
    if (!validate) this.mismatches.push(`${what}: status ${status} is not documented`);
    else if (!validate(body ?? {})) this.report(`${what} -> ${status}`, validate.errors, body);
  }

  private report(what: string, errors: unknown, value: unknown): void {
    const shown = JSON.stringify(value)?.slice(0, 400);
    this.mismatches.push(`${what}: ${JSON.stringify(errors).slice(0, 600)}\n  value: ${shown}`);
  }
}

/** One JSON request to another server. */
async function send<T>(
  target: Target,
  method: string,
  path: string,
  body: unknown,
  opts: CallOptions,
): Promise<Reply<T>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const token = opts.token === undefined ? target.token : opts.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(target.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T, text };
}

/** An SSE request read until `until` is satisfied, the server ends it, or `ms` pass. */
function readSse(
  url: string,
  method: string,
  token: string,
  body: unknown,
  until: (events: StreamAnswer['events']) => boolean,
  ms: number,
): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const answer: StreamAnswer = { status: 0, events: [], text: '' };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = {
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const req = http.request(url, { method, headers }, (res) => {
      answer.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      let buffer = '';
      let event = 'message';
      const finish = () => {
        clearTimeout(timer);
        req.destroy();
        resolve(answer);
      };
      const timer = setTimeout(finish, ms);
      res.on('data', (chunk: string) => {
        if (answer.status !== 200) {
          answer.text += chunk;
          return;
        }
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end).replace(/\r$/, '');
          buffer = buffer.slice(end + 1);
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) {
            const data: unknown = JSON.parse(line.slice(5).trim());
            // A data-framed stream names its events inside the data, or not at all.
            answer.events.push({ event, data });
          } else if (line === '') event = 'message';
        }
        if (until(answer.events)) finish();
      });
      res.on('end', finish);
    });
    req.on('error', (err) => (answer.status === 0 ? reject(err) : resolve(answer)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
