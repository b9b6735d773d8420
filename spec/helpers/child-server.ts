/**
 * Runs `eddydb start` as a real child process (through tsx), for tests that
 * kill it with SIGKILL. Resolves once the server prints its listening line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const CHILD_ADMIN_KEY = 'child-admin-key-0123456789';

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

export function startChild(dataDir: string, args: string[] = []): Promise<ChildServer> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.resolve('lib/cli/main.ts'),
      'start',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      ...args,
    ],
    {
      env: { ...process.env, EDDYDB_ADMIN_KEY: CHILD_ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`child did not start:\n${out}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: `http://127.0.0.1:${m[1]}`, output: () => out });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}:\n${out}`));
    });
  });
}

export function killChild(c: ChildServer, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (c.proc.exitCode !== null || c.proc.signalCode !== null) return resolve();
    c.proc.once('exit', () => resolve());
    c.proc.kill(signal);
  });
}

export async function childToken(url: string): Promise<string> {
  const r = await fetch(url + '/api/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: CHILD_ADMIN_KEY }),
  });
  return ((await r.json()) as { token: string }).token;
}
