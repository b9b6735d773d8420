/**
 * Starts a real EddyDB server on 127.0.0.1:0 with its own temp data dir (or
 * none with `memory: true`: `dataDir` is then the empty string), and
 * gives tests a small HTTP client speaking JSON or MessagePack the way the
 * ekoDB clients do (Content-Type and Accept both set to the chosen format).
 * Unless a test passes its own `logger`, what the server logs is kept in
 * `logged` instead of printed, so expected failures stay out of the output.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encode as mpEncode, decode as mpDecode } from '@msgpack/msgpack';
import { Server, type ServerConfig, type ServerStorage, type LogLevel } from '../../lib/http/index.js';
import { ManualClock } from '../../lib/engine/index.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

/** One line the server logged. */
export interface LoggedLine {
  level: LogLevel;
  msg: string;
  extra: unknown;
}

/** Lines kept per server; a test logging more (an access log under load) keeps the first ones. */
const MAX_LOGGED = 10_000;

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  format?: 'json' | 'msgpack';
  headers?: Record<string, string>;
  /** Send these exact bytes as the body. */
  raw?: Buffer | string;
}

export class TestServer {
  private tokenCache: string | undefined;
  private constructor(
    readonly server: Server,
    readonly dataDir: string,
    readonly clock: ManualClock,
    readonly ownsDir: boolean,
    /** What the server logged at or above its level, when the test gave no logger. */
    readonly logged: LoggedLine[],
  ) {}

  static async start(
    overrides: Partial<Omit<ServerConfig, 'dataDir' | 'memory'>> & {
      dataDir?: string;
      memory?: boolean;
      clock?: ManualClock;
    } = {},
  ): Promise<TestServer> {
    const { memory, dataDir: _given, ...rest } = overrides;
    const ownsDir = !overrides.dataDir && !memory;
    const dataDir = memory ? '' : (overrides.dataDir ?? mkdtempSync(path.join(tmpdir(), 'eddydb-spec-')));
    const storage: ServerStorage = memory ? { memory: true } : { dataDir };
    const clock = overrides.clock ?? new ManualClock(Date.now());
    const logged: LoggedLine[] = [];
    const server = await Server.create({
      port: 0,
      host: '127.0.0.1',
      adminKey: ADMIN_KEY,
      quiet: true,
      trashPurgeCron: '',
      snapshotCron: '',
      ttlSweepMs: 0,
      logger: (level, msg, extra) => {
        if (logged.length < MAX_LOGGED) logged.push({ level, msg, extra });
      },
      ...rest,
      ...storage,
      clock,
    });
    await server.listen();
    return new TestServer(server, dataDir, clock, ownsDir, logged);
  }

  get url(): string {
    return this.server.url;
  }

  async stop(opts: { keepData?: boolean } = {}): Promise<void> {
    await this.server.close();
    if (this.ownsDir && !opts.keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** A token for the admin key (cached). */
  async adminToken(): Promise<string> {
    this.tokenCache ??= await this.tokenFor(ADMIN_KEY);
    return this.tokenCache;
  }

  async tokenFor(apiKey: string): Promise<string> {
    const r = await this.request('POST', '/api/auth/token', { api_key: apiKey }, { token: null });
    if (r.status !== 200) throw new Error(`token exchange failed: ${r.status} ${r.text}`);
    return r.body.token;
  }

  /** Saves a stored function (as admin; `name` and empty `parameters` filled in); returns its id, throws unless 200. */
  async saveFunction(def: Record<string, unknown>): Promise<string> {
    const r = await this.request('POST', '/api/functions', { name: String(def.label), parameters: {}, ...def });
    if (r.status !== 200) throw new Error(`save failed: ${r.status} ${r.text}`);
    return r.body.id as string;
  }

  /** Calls a stored function by label (as admin). */
  callFunction<T = any>(label: string, params: unknown = {}): Promise<Reply<T>> {
    return this.request<T>('POST', `/api/functions/${encodeURIComponent(label)}`, params);
  }

  /** Creates a non-admin key and returns a token for it. */
  async userToken(body: Record<string, unknown> = { name: 'user' }): Promise<string> {
    const r = await this.request('POST', '/api/auth/keys', body);
    if (r.status !== 201) throw new Error(`key create failed: ${r.status} ${r.text}`);
    return this.tokenFor(r.body.key);
  }

  /**
   * Sends a request. `token` undefined uses the admin token; null sends none.
   * The body is encoded per `format` (JSON by default).
   */
  async request<T = any>(
    method: string,
    urlPath: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<Reply<T>> {
    const format = opts.format ?? 'json';
    const type = format === 'msgpack' ? 'application/msgpack' : 'application/json';
    const headers: Record<string, string> = { 'Content-Type': type, Accept: type, ...opts.headers };
    const token = opts.token === undefined ? await this.adminToken() : opts.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload: Buffer | string | undefined = opts.raw;
    if (payload === undefined && body !== undefined)
      payload = format === 'msgpack' ? Buffer.from(mpEncode(body)) : JSON.stringify(body);
    const res = await fetch(this.url + urlPath, { method, headers, body: payload });
    // fetch has already decompressed a gzip body; Content-Encoding still tells that it was sent compressed.
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let parsed: unknown = undefined;
    const ct = res.headers.get('content-type') ?? '';
    if (bytes.length > 0) parsed = ct.includes('msgpack') ? mpDecode(bytes) : JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }
}

/**
 * An error answer's body without its `request_id`, after checking that it names the answer (its X-Request-Id), for
 * specs that compare the rest of the body.
 */
export function errorBody(r: Reply): Record<string, any> {
  const { request_id: requestId, ...rest } = r.body as Record<string, any>;
  if (requestId !== r.headers.get('x-request-id'))
    throw new Error(`request_id ${String(requestId)} is not the X-Request-Id ${r.headers.get('x-request-id')}`);
  return rest;
}

/** An answer's JSON text parsed, less the `request_id` of an error body: the same for two requests answered alike. */
export function withoutRequestId(text: string): unknown {
  const parsed = JSON.parse(text) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return parsed;
  const { request_id: _id, ...rest } = parsed as Record<string, unknown>;
  return rest;
}

/** Unwraps typed records the way the clients' extractRecord does. */
export function bare(record: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(record)) {
    out[k] = v !== null && typeof v === 'object' && 'type' in v && 'value' in v ? v.value : v;
  }
  return out;
}
