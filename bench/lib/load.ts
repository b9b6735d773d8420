/**
 * HTTP load: wrk (`-t1 -c50` by default), run pinned to LOAD_CORE, the way
 * the reference figures are measured; autocannon (a devDependency) only
 * when wrk is not installed. Every result says which tool produced it.
 *
 * wrk runs a generated Lua script: it prebuilds one request per path (so
 * reads can hit random ids) and its done() hook prints one JSON line with
 * requests, duration, latency percentiles and errors.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOAD_CORE, pinned } from './procs.js';
import type { Measurement } from './report.js';

export interface LoadSpec {
  url: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
  seconds?: number;
  /** Paths (with query) requested in random order instead of the URL's own path (wrk only). */
  paths?: string[];
}

/** Measurement from a load run, with the counts needed for CPU per request. */
export interface LoadResult extends Measurement {
  requests: number;
  duration_s: number;
  throughput: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  errors: number;
  non2xx: number;
  tool: string;
  /** CPU the load generator used over the run, in cores (near 1.0: the load tool, not the server, set the pace). */
  load_cpu?: number;
}

const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
const hasWrk = spawnSync(WRK, ['--version']).error === undefined;

/** The tool `load` uses on this machine. */
export function loadTool(): string {
  return hasWrk ? 'wrk -t1 (Debian wrk 4.1)' : 'autocannon (wrk not installed)';
}

export function load(label: string, spec: LoadSpec): Promise<LoadResult> {
  return hasWrk ? wrk(label, spec) : autocannon(label, spec);
}

/**
 * A Lua string literal holding `s` exactly (bytes escaped as \ddd where needed, always three digits: `\34` before a
 * digit would read as one escape).
 */
function luaString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8'))
    out +=
      b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`;
  return out + '"';
}

function wrkScript(spec: LoadSpec, defaultPath: string): string {
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
    .join(', ');
  const paths = (spec.paths?.length ? spec.paths : [defaultPath]).map(luaString).join(',\n');
  return `
local paths = {
${paths}
}
local reqs = {}
local headers = { ${headers} }
local body = ${spec.body === undefined ? 'nil' : luaString(spec.body)}
function init(args)
  for i, p in ipairs(paths) do reqs[i] = wrk.format(${luaString(spec.method ?? 'GET')}, p, headers, body) end
  math.randomseed(12345)
end
function request()
  return reqs[math.random(#reqs)]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.timeout, e.status))
end
`;
}

/** Children's user + system seconds from the last line of the shell's `times` (e.g. `0m1.234s 0m0.567s`). */
function childCpuSeconds(out: string): number {
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s\s*$/.exec(out.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : NaN;
}

function wrk(label: string, spec: LoadSpec): Promise<LoadResult> {
  const u = new URL(spec.url);
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-wrk-'));
  const script = path.join(dir, 'load.lua');
  writeFileSync(script, wrkScript(spec, u.pathname + u.search));
  const args = [
    '-t1',
    `-c${spec.connections ?? 50}`,
    `-d${spec.seconds ?? 5}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    `${u.protocol}//${u.host}`,
  ];
  // Through a shell whose `times` reports wrk's CPU once it has exited.
  const [cmd, argv] = pinned(LOAD_CORE, '/bin/sh', ['-c', '"$0" "$@"; times', WRK, ...args]);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.stderr.on('data', (d) => {
      out += d;
    });
    p.on('exit', () => {
      rmSync(dir, { recursive: true, force: true });
      const m = /^WRKJSON (.*)$/m.exec(out);
      if (!m) return reject(new Error(`wrk output unreadable: ${out.slice(0, 800)}`));
      const j = JSON.parse(m[1]!) as {
        requests: number;
        duration_us: number;
        p50_us: number;
        p99_us: number;
        max_us: number;
        errors: number;
        non2xx: number;
      };
      const duration_s = j.duration_us / 1e6;
      resolve({
        label,
        requests: j.requests,
        duration_s,
        throughput: j.requests / duration_s,
        p50_ms: j.p50_us / 1000,
        p99_ms: j.p99_us / 1000,
        max_ms: j.max_us / 1000,
        errors: j.errors,
        non2xx: j.non2xx,
        tool: 'wrk',
        load_cpu: childCpuSeconds(out) / duration_s,
      });
    });
  });
}

function autocannon(label: string, spec: LoadSpec): Promise<LoadResult> {
  const args = [
    path.resolve('node_modules/autocannon/autocannon.js'),
    '--json',
    '-c',
    String(spec.connections ?? 50),
    '-d',
    String(spec.seconds ?? 5),
    '-m',
    spec.method ?? 'GET',
  ];
  for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (spec.body !== undefined) args.push('-b', spec.body);
  // autocannon's command line takes one URL: the first of `paths` stands for all.
  args.push(spec.paths?.length ? new URL(spec.paths[0]!, spec.url).href : spec.url);
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, args);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('exit', () => {
      try {
        const j = JSON.parse(out) as {
          requests: { total: number; average: number };
          duration: number;
          latency: { p50: number; p99: number; max: number };
          non2xx: number;
          errors: number;
        };
        resolve({
          label,
          requests: j.requests.total,
          duration_s: j.duration,
          throughput: j.requests.total / j.duration,
          p50_ms: j.latency.p50,
          p99_ms: j.latency.p99,
          max_ms: j.latency.max,
          non2xx: j.non2xx,
          errors: j.errors,
          tool: 'autocannon',
        });
      } catch {
        reject(new Error(`autocannon output unreadable: ${out.slice(0, 500)}`));
      }
    });
  });
}
