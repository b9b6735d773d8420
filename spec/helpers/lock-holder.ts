/**
 * Holds a data directory's lock in a child process (lock-holder-main.ts),
 * for specs of what another process sees: a held lock, and one released by
 * the kernel when the holder is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export type HoldHow = 'database' | 'flock' | 'socket' | 'pid';

export interface LockHolder {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** The mechanism the child holds the lock with. */
  readonly mechanism: string;
}

const MAIN = path.resolve('spec/helpers/lock-holder-main.ts');

/**
 * Starts a child that takes `dir`'s lock (waiting up to `waitMs`); resolves once it holds, rejects with its refusal.
 */
export function holdInChild(dir: string, how: HoldHow, waitMs = 0): Promise<LockHolder> {
  const proc = spawn(process.execPath, ['--import', 'tsx', MAIN, dir, how, String(waitMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`the lock holder did not answer:\n${out}`));
    }, 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const held = /^held (\S+) (\d+)$/m.exec(out);
      if (held) {
        clearTimeout(timer);
        resolve({ proc, pid: Number(held[2]), mechanism: held[1]! });
      }
      const refused = /^refused (.*)$/m.exec(out);
      if (refused) {
        clearTimeout(timer);
        reject(new Error(refused[1]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the lock holder exited with ${code}:\n${out}`));
    });
  });
}

/** Sends `signal` and resolves once the child has exited (and been reaped). */
export function stopHolder(h: LockHolder, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (h.proc.exitCode !== null || h.proc.signalCode !== null) return resolve();
    h.proc.once('exit', () => resolve());
    h.proc.kill(signal);
  });
}
