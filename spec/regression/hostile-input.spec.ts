/**
 * The hostile-input run: 10,000 seeded requests against a real
 * server (malformed bodies and headers, wrong types, unknown operators,
 * catastrophic patterns, prototype pollution, huge lists, hostile ids and
 * paths), sent concurrently over real HTTP and raw sockets. Every answer must
 * be a non-5xx, no request and no concurrent health probe may stall, and the
 * canary data written before the run must be intact afterwards and after a
 * restart.
 */
import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { encode as mpEncode } from '@msgpack/msgpack';
import { mulberry32 } from '../helpers/seeded-random.js';
import { rmSync } from 'node:fs';
import { TestServer } from '../helpers/test-server.js';

const REQUESTS = 10_000;
const CONCURRENCY = 16;
/** Generous: the machine may be loaded; a backtracking regex or an O(n^2) list stalls for seconds. */
const STALL_MS = 3_000;
const HEALTH_STALL_MS = 2_000;

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (rand: Rand, n: number) => Math.floor(rand() * n);

const CATASTROPHIC = ['^(a+)+$', '(a|aa)*b', '(x+x+)+y', '^(([a-z])+.)+[A-Z]([a-z])+$', '(a*)*$', '(.*a){25}'];
const UNSUPPORTED_PATTERNS = ['(a)\\1', '(?=a)b', '(?<=a)b', '(?<!a)b', '(((', '[z-a]', '\\', '*'];
const deepParens = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);

function hostileString(rand: Rand): string {
  return pick(rand, [
    '',
    ' ',
    'a'.repeat(30) + '!',
    '__proto__',
    'constructor',
    'prototype',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\u202e',
    '../../etc/passwd',
    '%00',
    '%2e%2e%2f',
    'x'.repeat(5000),
    '🙂'.repeat(100),
    '$where',
    '{{env.SECRET}}',
    '<script>',
    "' OR 1=1 --",
    '\r\nX-Injected: 1',
    'NaN',
    '-0',
    '1e309',
    '9007199254740993',
  ]);
}

function hostileValue(rand: Rand, depth = 0): unknown {
  switch (int(rand, depth > 3 ? 8 : 12)) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return pick(rand, [0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, -1e-308, Number.MAX_SAFE_INTEGER]);
    case 3:
      return hostileString(rand);
    case 4:
      return {
        type: pick(rand, [
          'Integer',
          'Float',
          'DateTime',
          'UUID',
          'Vector',
          'Set',
          'Bytes',
          'Duration',
          'Decimal',
          'Nope',
        ]),
        value: hostileValue(rand, depth + 1),
      };
    case 5:
      return pick(rand, ['2024-01-01T00:00:00Z', '2024-13-45T99:99:99Z', 'b1ffcd00-0d1c-5fg9-8a1a-000000000000']);
    case 6:
      return Array.from({ length: int(rand, 4) }, () => hostileValue(rand, depth + 1));
    case 7:
      return JSON.parse('{"__proto__": {"polluted": true}}');
    case 8:
      return { constructor: { prototype: { polluted: true } } };
    case 9:
      return nested(int(rand, 2) ? 50 : 300);
    case 10:
      return Object.fromEntries(
        Array.from({ length: int(rand, 4) }, () => [hostileString(rand), hostileValue(rand, depth + 1)]),
      );
    default:
      return Array.from({ length: pick(rand, [1000, 20_000]) }, (_, i) => i);
  }
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function hostileFilter(rand: Rand, depth = 0): unknown {
  switch (int(rand, 7)) {
    case 0:
      return {
        type: 'Condition',
        content: {
          field: pick(rand, ['name', 'n', '__proto__', 'a.b.c', '']),
          operator: pick(rand, ['Eq', 'Gt', 'In', 'Regex', 'Like', 'eq', '$ne', 'Contains']),
          value: hostileValue(rand),
        },
      };
    case 1:
      return {
        type: 'Logical',
        content: {
          operator: pick(rand, ['And', 'Or', 'Not', 'Xor']),
          expressions: Array.from({ length: int(rand, 3) }, () => (depth < 4 ? hostileFilter(rand, depth + 1) : 1)),
        },
      };
    case 2:
      return {
        type: 'Condition',
        content: {
          field: 'n',
          operator: 'In',
          value: Array.from({ length: pick(rand, [10, 10_000, 100_000]) }, (_, i) => i),
        },
      };
    case 3: {
      let f: unknown = { type: 'Condition', content: { field: 'n', operator: 'Eq', value: 1 } };
      for (let i = 0, n = pick(rand, [100, 1000, 1500]); i < n; i++)
        f = { type: 'Logical', content: { operator: 'Not', expressions: [f] } };
      return f;
    }
    case 4:
      return { field: 'n', operator: 'Eq', value: 1 };
    case 5:
      return hostileValue(rand);
    default:
      return 'not a filter';
  }
}

function hostileQuery(rand: Rand): unknown {
  const q: Record<string, unknown> = {};
  if (rand() < 0.7) q.filter = hostileFilter(rand);
  if (rand() < 0.3)
    q.sort =
      rand() < 0.5
        ? [{ field: 'n', ascending: rand() < 0.5 }]
        : Array.from({ length: 50_000 }, (_, i) => ({ field: `f${i}`, ascending: true }));
  if (rand() < 0.3) q.limit = hostileValue(rand);
  if (rand() < 0.2) q.skip = hostileValue(rand);
  if (rand() < 0.2) q.select_fields = Array.from({ length: pick(rand, [2, 100_000]) }, (_, i) => `f${i}`);
  if (rand() < 0.2) q.exclude_fields = Array.from({ length: pick(rand, [2, 100_000]) }, (_, i) => `f${i}`);
  if (rand() < 0.1) q.join = hostileValue(rand);
  if (rand() < 0.1) q[hostileString(rand)] = hostileValue(rand);
  return q;
}

function hostileSchema(rand: Rand): unknown {
  const field: Record<string, unknown> = { field_type: pick(rand, ['String', 'Integer', 'Nope', 'string', '']) };
  if (rand() < 0.6)
    field.regex = pick(rand, [
      ...CATASTROPHIC,
      ...UNSUPPORTED_PATTERNS,
      deepParens(pick(rand, [100, 30_000])),
      'x'.repeat(100_000),
    ]);
  if (rand() < 0.3) field.min = hostileValue(rand);
  if (rand() < 0.3) field.enums = hostileValue(rand);
  return rand() < 0.5 ? { fields: { name: field } } : { constraints: { name: field } };
}

const COLLECTIONS = [
  'fz_a',
  'fz_b',
  'fz_new',
  '__proto__',
  'constructor',
  '',
  'a/b',
  '..',
  'x'.repeat(300),
  '%ff',
  '%00',
  'résumé',
  'a b',
];

/** Percent-encodes like a client would; a lone surrogate (which encodeURIComponent refuses) is sent as raw bytes. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
}

function collection(rand: Rand): string {
  return enc(pick(rand, COLLECTIONS)).replace(/%25/g, '%');
}

function id(rand: Rand): string {
  return pick(rand, [
    'AAAAAAAAAAAAAAAAAAAAAA',
    'x',
    '..%2f..',
    '%00',
    '%',
    'x'.repeat(5000),
    '__proto__',
    'constructor',
    '%F0%9F%99%82',
    '1',
    '-1',
  ]);
}

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  raw?: boolean;
}

/** One hostile request; `token` is an admin token, `userToken` a restricted one. */
function hostileRequest(rand: Rand, admin: string, user: string): Req {
  const c = collection(rand);
  const kvKey = enc(pick(rand, ['k1', 'k2', 'fz:1', 'a'.repeat(30) + '!', '__proto__', 'x'.repeat(2000)]));
  const routes: Array<[string, string, () => unknown]> = [
    [
      'POST',
      `/api/insert/${c}`,
      () =>
        rand() < 0.7
          ? { name: hostileValue(rand), n: hostileValue(rand), [hostileString(rand)]: hostileValue(rand) }
          : hostileValue(rand),
    ],
    ['POST', `/api/find/${c}`, () => hostileQuery(rand)],
    ['GET', `/api/find/${c}/${id(rand)}`, () => undefined],
    ['PUT', `/api/update/${c}/${id(rand)}`, () => ({ name: hostileValue(rand) })],
    [
      'PUT',
      `/api/update/${c}/${id(rand)}/action/${pick(rand, ['increment', 'push', 'nope', '__proto__'])}`,
      () => ({ field: hostileString(rand), value: hostileValue(rand) }),
    ],
    ['PUT', `/api/update/sequence/${c}/${id(rand)}`, () => hostileValue(rand)],
    ['DELETE', `/api/delete/${c}/${id(rand)}`, () => undefined],
    [
      'POST',
      `/api/batch/insert/${c}`,
      () => ({
        inserts:
          rand() < 0.5
            ? hostileValue(rand)
            : Array.from({ length: int(rand, 5) }, () => ({ data: hostileValue(rand) })),
      }),
    ],
    ['PUT', `/api/batch/update/${c}`, () => ({ updates: hostileValue(rand) })],
    ['DELETE', `/api/batch/delete/${c}`, () => ({ deletes: hostileValue(rand) })],
    ['POST', `/api/distinct/${c}/${enc(hostileString(rand))}`, () => hostileQuery(rand)],
    ['GET', `/api/${c}/count`, () => undefined],
    [
      'POST',
      `/api/search/${c}`,
      () => ({
        query: hostileValue(rand),
        vector: hostileValue(rand),
        fields: hostileValue(rand),
        limit: hostileValue(rand),
      }),
    ],
    ['POST', `/api/query/${c}/explain`, () => hostileQuery(rand)],
    ['POST', `/api/collections/${c}`, () => hostileSchema(rand)],
    ['PUT', `/api/schemas/${c}`, () => hostileSchema(rand)],
    ['PUT', `/api/schemas/${c}/primary-key-alias`, () => ({ alias: hostileValue(rand) })],
    ['POST', `/api/indexes/query/${c}`, () => ({ field: hostileValue(rand), type: hostileValue(rand) })],
    ['POST', `/api/kv/set/${kvKey}`, () => ({ value: hostileValue(rand), ttl: hostileValue(rand) })],
    ['GET', `/api/kv/get/${kvKey}`, () => undefined],
    [
      'POST',
      '/api/kv/find',
      () => ({
        pattern: pick(rand, [
          ...CATASTROPHIC,
          ...UNSUPPORTED_PATTERNS,
          deepParens(pick(rand, [50, 30_000])),
          'k.*',
          hostileValue(rand),
        ]),
      }),
    ],
    ['POST', '/api/kv/batch/get', () => ({ keys: hostileValue(rand) })],
    ['POST', '/api/kv/batch/set', () => ({ entries: hostileValue(rand) })],
    ['POST', '/api/transactions', () => ({ isolation_level: hostileValue(rand), timeout_seconds: hostileValue(rand) })],
    ['POST', `/api/transactions/${id(rand)}/commit`, () => undefined],
    ['POST', `/api/transactions/${id(rand)}/savepoints`, () => ({ name: hostileValue(rand) })],
    ['POST', '/api/auth/token', () => ({ api_key: hostileValue(rand) })],
    [
      'POST',
      '/api/auth/keys',
      () => ({
        name: hostileValue(rand),
        collection_permissions: hostileValue(rand),
        kv_permissions: hostileValue(rand),
      }),
    ],
    ['PUT', '/api/config', () => hostileValue(rand)],
    ['POST', '/api/embed', () => ({ text: hostileValue(rand), model: hostileValue(rand) })],
    ['POST', '/api/ripple/apply', () => hostileValue(rand)],
    ['GET', `/api/${hostileString(rand).replace(/[^a-z]/g, '') || 'x'}/${id(rand)}/${id(rand)}`, () => undefined],
  ];
  const [method, path, makeBody] = pick(rand, routes);
  const useAdmin = path !== '/api/config' && rand() < 0.75;
  const headers: Record<string, string> = {};
  const auth = int(rand, 20);
  if (auth === 0) headers.authorization = 'Bearer ' + 'x'.repeat(int(rand, 3000));
  else if (auth === 1) headers.authorization = pick(rand, ['Basic abc', 'Bearer', 'Bearer a.b.c', `Bearer ${admin}x`]);
  else if (auth !== 2) headers.authorization = `Bearer ${useAdmin ? admin : user}`;
  const format = int(rand, 10);
  const value = makeBody();
  let body: Buffer | string | undefined;
  if (value !== undefined || rand() < 0.1) {
    if (format === 0) body = Buffer.from(Array.from({ length: int(rand, 200) }, () => int(rand, 256)));
    else if (format === 1) body = jsonText(value ?? {}).slice(0, int(rand, 40));
    else if (format === 2) {
      try {
        body = Buffer.from(mpEncode(value ?? {}));
      } catch {
        body = Buffer.from([0xc1]);
      }
      headers['content-type'] = 'application/msgpack';
    } else if (format === 3) body = Buffer.from([0xde, 0xff, 0xff, 0xa1, 0x61]);
    else body = jsonText(value ?? null);
  }
  if (!headers['content-type'] && body !== undefined) {
    headers['content-type'] =
      int(rand, 4) === 0
        ? pick(rand, [
            '',
            'foo',
            ',',
            'application/json, application/msgpack',
            'application/json; charset=utf-16',
            'text/html',
            'multipart/form-data; boundary=x',
            'application/msgpack',
            'application/*',
          ])
        : 'application/json';
    if (headers['content-type'] === '') delete headers['content-type'];
  }
  if (format === 2 && headers['content-type'] !== 'application/msgpack')
    headers['content-type'] = 'application/msgpack';
  if (int(rand, 15) === 0)
    headers.accept = pick(rand, ['application/msgpack', '*/*', 'text/html', ',,,', 'application/msgpack;q=x']);
  if (int(rand, 20) === 0) headers['accept-encoding'] = pick(rand, ['gzip', 'br', 'gzip;q=0', '*', 'x'.repeat(1000)]);
  return { method, path, headers, ...(body !== undefined ? { body } : {}), raw: int(rand, 25) === 0 };
}

/**
 * JSON text of a value; one nested deeper than this process's JSON.stringify can walk is sent as a deep literal
 * instead.
 */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '{"filter":' + '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000) + '}';
  }
}

function send(agent: http.Agent, port: number, r: Req): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: r.method, path: r.path, headers: r.headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Bytes no well-behaved client would send: bad header syntax, bad request lines, lying lengths. */
function sendRaw(port: number, rand: Rand, token: string): Promise<number> {
  const line = pick(rand, [
    `POST /api/insert/fz_a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: 5\r\n\r\n{"a":`,
    `POST /api/insert/fz_a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ` +
      `application/json\r\nContent-Type: application/msgpack\r\nContent-Length: 2\r\n\r\n{}`,
    `POST /api/insert/fz_a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ` +
      `\u00ff\u00fe\r\nContent-Length: 2\r\n\r\n{}`,
    `GET /api/find/fz_a/%ff%fe HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    `GET /api/health?${'a=%'.repeat(10)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    `POST /api/auth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: ` +
      `application/json\r\n\r\nzz\r\n`,
    `POST /api/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
    `BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n`,
    `GET /api/health HTTP/1.1\r\nHost: x\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`,
    `POST /api/insert/fz_a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: 2\r\n\r\n{}`,
  ]);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(line));
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve(m ? Number(m[1]) : 0);
    });
    socket.setTimeout(STALL_MS, () => {
      socket.destroy();
      reject(new Error(`raw request stalled: ${JSON.stringify(line.slice(0, 80))}`));
    });
  });
}

describe('regression: the hostile-input run', function () {
  this.timeout(240_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start();
  });
  let reopenedDir: string | undefined;
  after(async () => {
    await server.stop();
    if (reopenedDir) rmSync(reopenedDir, { recursive: true, force: true });
  });

  it('answers 10,000 seeded hostile requests with 4xx or 2xx, never stalls, and loses nothing', async () => {
    const rand = mulberry32(0x8badf00d);
    const admin = await server.adminToken();
    const user = await server.userToken({
      name: 'fuzz',
      collection_permissions: { fz_a: { read: true, write: true }, fz_b: { read: true, write: false } },
    });
    expect(
      (
        await server.request('POST', '/api/collections/fz_a', {
          fields: { name: { field_type: 'String', regex: '^[a-z]+$' } },
        })
      ).status,
    ).to.equal(201);
    expect((await server.request('POST', '/api/collections/canary', {})).status).to.equal(201);
    const canaries = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < 100; i++) {
      const r = await server.request('POST', '/api/insert/canary', { name: `c${i}`, n: i });
      expect(r.status).to.equal(201);
      canaries.set(r.body.id, { name: `c${i}`, n: i });
    }
    for (let i = 0; i < 20; i++)
      expect((await server.request('POST', `/api/kv/set/canary:${i}`, { value: { i } })).status).to.be.oneOf([
        200, 201,
      ]);

    const port = new URL(server.url).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const failures: string[] = [];
    let healthWorst = 0;
    let done = false;
    const probe = (async () => {
      while (!done) {
        const t = performance.now();
        await fetch(`${server.url}/api/health`).then((r) => r.arrayBuffer());
        healthWorst = Math.max(healthWorst, performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    let next = 0;
    const statuses = new Map<number, number>();
    const worker = async () => {
      while (next < REQUESTS && failures.length < 20) {
        const n = next++;
        const r = hostileRequest(rand, admin, user);
        const what =
          `#${n} ${r.method} ${r.path.slice(0, 80)} ${JSON.stringify(r.headers['content-type'] ?? null)} ` +
          `${String(r.body ?? '').slice(0, 60)}`;
        const t = performance.now();
        let status: number;
        try {
          status = r.raw ? await sendRaw(Number(port), rand, admin) : await send(agent, Number(port), r);
        } catch (err) {
          failures.push(`${(err as Error).message}: ${what}`);
          continue;
        }
        const ms = performance.now() - t;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 500 || (status === 0 && !r.raw)) failures.push(`${status} ${what}`);
        if (ms > STALL_MS) failures.push(`stalled ${Math.round(ms)} ms: ${what}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    done = true;
    await probe;
    agent.destroy();
    expect(failures, failures.join('\n')).to.deep.equal([]);
    // The run does real work too: some hostile-looking requests are valid and succeed.
    const succeeded = [200, 201, 207].reduce((n, s) => n + (statuses.get(s) ?? 0), 0);
    expect(succeeded, JSON.stringify([...statuses])).to.be.above(100);
    expect(healthWorst, 'worst /api/health latency during the run (ms)').to.be.below(HEALTH_STALL_MS);
    expect(Object.prototype).to.not.have.property('polluted');

    const check = async (s: TestServer) => {
      for (const [rid, want] of canaries) {
        const r = await s.request('GET', `/api/find/canary/${rid}`, undefined, {
          headers: { Accept: 'application/json' },
        });
        expect(r.status, `canary ${rid}`).to.equal(200);
        const got = Object.fromEntries(
          Object.entries(r.body).map(([k, v]) => [
            k,
            v && typeof v === 'object' && 'value' in (v as object) ? (v as { value: unknown }).value : v,
          ]),
        );
        expect(got).to.include(want);
      }
      for (let i = 0; i < 20; i++) {
        const r = await s.request('GET', `/api/kv/get/canary:${i}`);
        expect(r.status, `kv canary:${i}`).to.equal(200);
      }
      // Whatever schemas the run left behind, writes answer 2xx or 4xx.
      for (const c of ['fz_a', 'fz_b', 'fz_new']) {
        const r = await s.request('POST', `/api/insert/${c}`, { name: 'abc', n: 1 });
        expect(r.status, `insert into ${c}: ${r.text}`).to.be.below(500);
      }
    };
    await check(server);
    await server.stop({ keepData: true });
    reopenedDir = server.dataDir;
    server = await TestServer.start({ dataDir: reopenedDir });
    await check(server);
  });
});
