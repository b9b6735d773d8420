/**
 * Runs the real `eddydb` command (lib/cli/main.ts through the tsx loader) as
 * a child process and collects its exit code and output. The environment
 * is the test's own, less anything that would change the CLI's defaults
 * (npm's lifecycle variables turn on the parent watch; EDDYDB_* and PORT
 * would configure it), plus what a test passes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const CLI_MAIN = path.resolve('lib/cli/main.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test process's environment without npm's and EddyDB's variables, with `extra` added. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(npm_|EDDYDB_|PORT$|HOST$|OPENAI_)/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs `eddydb <args>` to completion (at most 60 s), feeding `input` on stdin. */
export function runCli(
  args: readonly string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): CliResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args], {
    input: opts.input ?? '',
    encoding: 'utf8',
    env: cleanEnv(opts.env),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface CliProcess {
  readonly proc: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Settles once the process has exited and its output has been read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `eddydb <args>` and leaves it running; the caller stops it. */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  // 'close', not 'exit': it comes once stdout and stderr are read to their end, so output() holds the last lines.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { proc, output: () => out, exited };
}
