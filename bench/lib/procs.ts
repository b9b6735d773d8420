/**
 * Child processes for benchmarks, pinned with taskset so the server and the
 * load generator do not fight over the machine's two cores.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const BENCH_ADMIN_KEY = 'bench-admin-key-0123456789';
const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

export function pinned(core: string, cmd: string, args: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', core, cmd, ...args]] : [cmd, args];
}

export interface Proc { proc: ChildProcess; url: string }

/** Starts a process on SERVER_CORE and waits for "listening on http://host:port" in its output. */
export function startListening(args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const [cmd, argv] = pinned(SERVER_CORE, process.execPath, args);
  const proc = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}` });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`process exited (${code}):\n${out}`)));
  });
}

export function startEddy(dataDir: string, extra: string[] = []): Promise<Proc> {
  return startListening(['--import', 'tsx', path.resolve('lib/cli/main.ts'), 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--quiet', ...extra],
    { EDDYDB_ADMIN_KEY: BENCH_ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '' });
}

export function startBare(): Promise<Proc> {
  return startListening(['--import', 'tsx', path.resolve('bench/bare-server.ts')]);
}

export function stop(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.proc.exitCode !== null) return resolve();
    p.proc.once('exit', () => resolve());
    p.proc.kill('SIGTERM');
    setTimeout(() => p.proc.kill('SIGKILL'), 10_000).unref();
  });
}

export async function token(url: string): Promise<string> {
  const r = await fetch(url + '/api/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: BENCH_ADMIN_KEY }) });
  return ((await r.json()) as { token: string }).token;
}
