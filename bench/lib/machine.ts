/**
 * What every result states beside its figures: the machine (cores, CPU
 * model), the Node version, the load tool, the date and the git commit, so
 * numbers from different machines or runs are never compared blindly.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { loadTool } from './load.js';

export interface Machine {
  cores: number;
  cpu_model: string;
  node: string;
  load_tool: string;
  date: string;
  commit: string;
  /** True when the quiet gate was overridden (BENCH_ALLOW_NOISY=1) and other processes were using the cores. */
  noisy: boolean;
}

let noisy = false;
/** Set by the quiet gate before each scenario: whether the results written next were measured on a noisy machine. */
export function setNoisy(value: boolean): void {
  noisy = value;
}

function gitCommit(): string {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (r.status !== 0) return 'unknown';
  const dirty = spawnSync(
    'git',
    ['status', '--porcelain', '--untracked-files=no', '--', 'lib', 'bench', 'bin', ':!bench/results'],
    { encoding: 'utf8' },
  ).stdout.trim();
  return r.stdout.trim() + (dirty ? '-dirty' : '');
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    load_tool: loadTool(),
    date: new Date().toISOString(),
    commit: gitCommit(),
    noisy,
  };
}
