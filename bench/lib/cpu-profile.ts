/**
 * The "µs table": where the server's CPU goes per request, from a V8 CPU
 * profile (`node --cpu-prof`) of the server under load. Self time of every
 * sample inside the load window is charged to a category by the first rule
 * below that matches the function's script URL and name, then divided by the
 * requests completed in the window. Rules map node internals, fastify, ws,
 * msgpackr and EddyDB's own files (lib/http, lib/engine) to the steps of a
 * request; what no rule matches is `other` (the top unmatched functions are
 * listed so the rules can be refined).
 *
 * Meanings: parse = request line, headers and body decoding; route = the
 * framework (fastify) and EddyDB's dispatcher and procedures; typed
 * conversion = records to and from the typed wire form; encode = the
 * response's bytes (JSON text, MessagePack); serialize = records to and from
 * storage bytes (log and snapshot codec); log append = the write queue and
 * log writer; fsync wait = time in fsync/fdatasync on the main thread; write
 * = node's HTTP response and socket path; other = the engine's record logic
 * and async scheduling (microtasks, ticks).
 */
import { readFileSync } from 'node:fs';

export const CATEGORIES = [
  'parse',
  'route',
  'auth',
  'permission',
  'validation',
  'id',
  'typed conversion',
  'encode',
  'log append',
  'fsync wait',
  'change feed',
  'indexes',
  'serialize',
  'write',
  'gc',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

interface Rule {
  category: Category;
  url?: RegExp;
  fn?: RegExp;
}

/** First match wins: specific EddyDB files first, then libraries, then node internals. */
export const RULES: Rule[] = [
  { category: 'gc', fn: /^\(garbage collector\)$/ },
  // EddyDB, HTTP layer
  {
    category: 'auth',
    url: /lib\/http\/auth\/(tokens|principal|credential-watch|auth-failures)\.js$|node_modules\/jose\//,
  },
  {
    category: 'permission',
    url: /lib\/http\/(auth\/permissions|auth\/rate-limit|procedures\/records\/batch-gate)\.js$/,
  },
  { category: 'parse', url: /lib\/http\/(procedures\/input|wire\/content-type)\.js$/ },
  {
    category: 'route',
    url: /lib\/http\/(routing\/(router|routes|dispatch)|procedures\/[^/]+|procedures\/(records|chat)\/[^/]+|auth\/client-address)\.js$/,
  },
  {
    category: 'encode',
    url: /lib\/http\/(wire\/codec|wire\/error-body|routing\/messages)\.js$|node_modules\/msgpackr\//,
  },
  { category: 'log append', url: /lib\/http\/log\/|node_modules\/pino/ },
  { category: 'write', url: /lib\/http\/transport\/(socket-response|ws)\.js$/ },
  {
    category: 'route',
    url: /lib\/http\/transport\/|node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify)\//,
  },
  // EddyDB, engine
  { category: 'id', url: /lib\/engine\/records\/ids\.js$/ },
  { category: 'parse', url: /lib\/engine\/values\/wire\/json\.js$/, fn: /^fromJson/ },
  { category: 'encode', url: /lib\/engine\/values\/wire\/(json|json-exact)\.js$/ },
  { category: 'serialize', url: /lib\/engine\/storage\/(codec|frame)\.js$/ },
  { category: 'serialize', url: /^node:zlib$/, fn: /^crc32$/ },
  {
    category: 'typed conversion',
    url: /lib\/engine\/values\/|lib\/engine\/schema\/(validation\/coerce-to-schema|field-value-from-wire)\.js$/,
  },
  { category: 'validation', url: /lib\/engine\/schema\/|node_modules\/ajv\// },
  { category: 'indexes', url: /lib\/engine\/indexes\/|lib\/engine\/search\/|lib\/vector\// },
  { category: 'change feed', url: /lib\/engine\/write\/(change-feed|change-notifier)\.js$/ },
  { category: 'fsync wait', fn: /fsync|fdatasync/i },
  {
    category: 'log append',
    url: /lib\/engine\/(engine-log|write\/(write-queue|effects|apply-batch|apply-effect))\.js$|lib\/engine\/storage\//,
  },
  { category: 'typed conversion', url: /lib\/engine\/query\/project\.js$/ },
  // node internals: record ids encrypt a counter (ids.ts), request ids are random UUIDs; tokens are HMACs
  { category: 'id', url: /node:internal\/crypto\/(cipher|random)$/ },
  { category: 'auth', url: /node:internal\/crypto\/(hash|mac|keys|sig|webcrypto)$/ },
  { category: 'log append', url: /^node:fs$|node:internal\/fs\// },
  { category: 'parse', url: /node:_http_common$|node:_http_incoming$/ },
  {
    category: 'parse',
    fn: /^(parserOnHeadersComplete|parserOnIncoming|parserOnBody|parserOnMessageComplete|execute|onParserExecute|JSONParse|parse)$/,
  },
  {
    category: 'write',
    url: /node:_http_outgoing$|node:_http_server$|node:net$|node:internal\/(stream_base_commons|streams\/|net)|node:stream$|node:events$/,
  },
  { category: 'encode', fn: /^(stringify|JSONStringify)$/ },
  { category: 'encode', url: /node:buffer$|node:internal\/buffer$/ },
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The category of a function. Native functions have no script URL (a socket's
 * and a file's `writeBuffer` look the same): unless a rule names them, they
 * take the category of their caller, `callerCategory`.
 */
export function categorize(url: string, fn: string, callerCategory: Category = 'other'): Category {
  for (const r of RULES) {
    if (r.url && !r.url.test(url)) continue;
    if (r.fn && !r.fn.test(fn)) continue;
    return r.category;
  }
  return url === '' ? callerCategory : 'other';
}

/** Category of every profile node, callers before callees. */
function nodeCategories(nodes: ProfileNode[]): Map<number, Category> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = new Map<number, Category>();
  const isChild = new Set(nodes.flatMap((n) => n.children ?? []));
  const stack: Array<[number, Category]> = nodes.filter((n) => !isChild.has(n.id)).map((n) => [n.id, 'other']);
  while (stack.length) {
    const [id, caller] = stack.pop()!;
    const node = byId.get(id)!;
    const c = categorize(node.callFrame.url, node.callFrame.functionName, caller);
    out.set(id, c);
    for (const child of node.children ?? []) stack.push([child, c]);
  }
  return out;
}

export interface UsTable {
  requests: number;
  window_ms: number;
  /** Category -> self time per request, µs (idle excluded). */
  us_per_request: Record<string, number>;
  total_us_per_request: number;
  /** V8's "(program)": native time the profiler could not attribute to a function (not in the total). */
  unattributed_us_per_request: number;
  /** The server's CPU per request over the same run from /proc (user + system), when measured. */
  proc_cpu_us_per_request?: number;
  /** The heaviest functions charged to `other`, µs per request. */
  top_other: Array<{ fn: string; us: number }>;
  /** The heaviest functions overall, µs per request, with their category. */
  top: Array<{ fn: string; category: Category; us: number }>;
}

const short = (url: string) => url.replace(/^file:\/\/.*?\/(dist\/|node_modules\/)/, '$1');

/**
 * Summarises a profile between monotonic times `fromUs` and `toUs`
 * (microseconds, the clock of process.hrtime, which V8 profiles also use on
 * Linux) over `requests` requests.
 */
export function usTable(profileFile: string, fromUs: number, toUs: number, requests: number): UsTable {
  const p = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    if (t < fromUs || t > toUs) continue;
    // The sample's time is the gap to the next sample (the usual attribution).
    const dt = p.timeDeltas[i + 1] ?? 0;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + dt);
  }
  const categories = nodeCategories(p.nodes);
  const perCat = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  const perFn = new Map<string, { category: Category; us: number }>();
  let unattributed = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(program)') unattributed += us;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)') continue;
    const category = categories.get(id) ?? 'other';
    perCat[category] += us;
    const key = `${functionName || '(anonymous)'} ${short(url)}${url ? `:${lineNumber + 1}` : ''}`;
    const e = perFn.get(key) ?? perFn.set(key, { category, us: 0 }).get(key)!;
    e.us += us;
  }
  const n = Math.max(1, requests);
  const us_per_request = Object.fromEntries(CATEGORIES.map((c) => [c, perCat[c] / n]));
  const fns = [...perFn].map(([fn, e]) => ({ fn, category: e.category, us: e.us / n })).sort((a, b) => b.us - a.us);
  return {
    requests,
    window_ms: (toUs - fromUs) / 1000,
    us_per_request,
    total_us_per_request: Object.values(us_per_request).reduce((a, b) => a + b, 0),
    unattributed_us_per_request: unattributed / n,
    top_other: fns
      .filter((f) => f.category === 'other')
      .slice(0, 10)
      .map(({ fn, us }) => ({ fn, us })),
    top: fns.slice(0, 15),
  };
}

const BAR_WIDTH = 60;

export function printUsTable(title: string, t: UsTable): void {
  console.log(
    `  µs table, ${title} (self time per request from --cpu-prof over ${t.requests} requests, idle excluded):`,
  );
  // One # per 2 µs, or per a longer span when the longest bar would pass BAR_WIDTH (a batch's table).
  const perMark = Math.max(2, Math.max(...Object.values(t.us_per_request)) / BAR_WIDTH);
  for (const c of CATEGORIES) {
    const us = t.us_per_request[c]!;
    if (us >= 0.05)
      console.log(`    ${c.padEnd(18)} ${us.toFixed(1).padStart(7)} µs  ${'#'.repeat(Math.round(us / perMark))}`);
  }
  console.log(
    `    ${'total'.padEnd(18)} ${t.total_us_per_request.toFixed(1).padStart(7)} µs` +
      `   (+ ${t.unattributed_us_per_request.toFixed(1)} µs native time V8 could not attribute` +
      (t.proc_cpu_us_per_request === undefined
        ? ')'
        : `; server CPU from /proc in the same run: ${t.proc_cpu_us_per_request.toFixed(1)} µs, user + system)`),
  );
  if (t.top_other.length)
    console.log(
      `    top of 'other': ${t.top_other
        .slice(0, 5)
        .map((f) => `${f.fn} ${f.us.toFixed(1)}`)
        .join('; ')}`,
    );
}
