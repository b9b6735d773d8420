/**
 * Child processes for benchmarks, pinned with taskset so the server and the
 * load generator do not fight over the machine's two cores. The server under
 * test runs as users run it: the built dist/ through bin/eddydb.js (see
 * buildOnce), never under tsx, whose transforms skew profiles. Reference
 * servers under bench/ are transpiled to dist/bench/ for the same reason.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const BENCH_ADMIN_KEY = 'bench-admin-key-0123456789';
const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

export function pinned(core: string, cmd: string, args: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', core, cmd, ...args]] : [cmd, args];
}

/** A started process; `output()` is everything it has written to stdout and stderr so far. */
export interface Proc {
  proc: ChildProcess;
  url: string;
  pid: number;
  output: () => string;
}

let built = false;
/** `npm run build` once per benchmark run, so the server measured is the current source. */
export function buildOnce(): void {
  if (built) return;
  const r = spawnSync(process.execPath, [path.resolve('bin/build.js')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
  built = true;
}

/**
 * Transpiles a bench/ TypeScript file to the same path under dist/ (bench/x.ts to dist/bench/x.js). Its imports
 * are node's, packages', and relative ones that resolve there too: other bench/ files compiled the same way, or
 * `../lib/...`, which from dist/bench/ is the built server.
 */
export function compiled(file: string): string {
  const out = path.resolve('dist', path.relative(path.resolve('.'), path.resolve(file)).replace(/\.ts$/, '.js'));
  mkdirSync(path.dirname(out), { recursive: true });
  const js = ts.transpileModule(readFileSync(path.resolve(file), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  writeFileSync(out, js);
  return out;
}

/** Starts a node process on `cores` and waits for "listening on http://host:port" in its output. */
export function startListening(args: string[], env: Record<string, string> = {}, cores = SERVER_CORE): Promise<Proc> {
  const [cmd, argv] = pinned(cores, process.execPath, args);
  const proc = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      // taskset execs node in place, so the child's pid is the server's.
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}`, pid: proc.pid!, output: () => out });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`process exited (${code}):\n${out}`)));
  });
}

export interface EddyOptions {
  /** Node flags before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** The cores it may run on, as taskset takes them: SERVER_CORE unless given. */
  cores?: string;
}

/**
 * The built server. Idle compaction is off: the reference shares the pinned
 * core, and a compaction run while the reference is measured (our server
 * idle) would slow the reference, not us. The memory scenario starts the
 * server with its defaults.
 */
export function startEddy(dataDir: string, extra: string[] = [], opts: EddyOptions = {}): Promise<Proc> {
  buildOnce();
  return startListening(
    [
      ...(opts.nodeArgs ?? []),
      path.resolve('bin/eddydb.js'),
      'start',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--quiet',
      ...extra,
    ],
    { EDDYDB_ADMIN_KEY: BENCH_ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '', EDDYDB_IDLE_COMPACTION_MB: '0' },
    opts.cores,
  );
}

/**
 * The bare node:http reference (bench/bare-server.ts). `record` is the exact
 * record EddyDB returns for a read, so both answer the same bytes.
 */
export function startBare(record?: unknown): Promise<Proc> {
  return startListening(
    [compiled('bench/bare-server.ts')],
    record === undefined ? {} : { BARE_RECORD: JSON.stringify(record) },
  );
}

/** The durable floor (bench/durable-floor-server.ts), appending to `file`; `nodeArgs` go before the script. */
export function startDurableFloor(file: string, nodeArgs: string[] = []): Promise<Proc> {
  return startListening([...nodeArgs, compiled('bench/durable-floor-server.ts')], { DURABLE_FILE: file });
}

/** The batch floor (bench/batch-floor-server.ts), appending to `file`; `nodeArgs` go before the script. */
export function startBatchFloor(file: string, nodeArgs: string[] = []): Promise<Proc> {
  return startListening([...nodeArgs, compiled('bench/batch-floor-server.ts')], { DURABLE_FILE: file });
}

export function stop(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) return resolve();
    p.proc.once('exit', () => resolve());
    p.proc.kill('SIGTERM');
    setTimeout(() => p.proc.kill('SIGKILL'), 10_000).unref();
  });
}

export async function token(url: string): Promise<string> {
  const r = await fetch(url + '/api/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: BENCH_ADMIN_KEY }),
  });
  return ((await r.json()) as { token: string }).token;
}
