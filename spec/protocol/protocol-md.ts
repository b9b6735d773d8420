/**
 * Where protocol.md is on this machine: the docs live beside the repository
 * (../shared/docs), not in it, so a clean clone (CI) has none and the specs
 * that read it skip. A git worktree looks beside its main checkout too.
 * EDDYDB_PROTOCOL_MD names the file explicitly.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The path of protocol.md, or undefined when the docs are not on this machine. */
export function findProtocolMd(): string | undefined {
  const candidates = [process.env.EDDYDB_PROTOCOL_MD, path.resolve('../shared/docs/protocol.md')];
  const common = gitCommonDir();
  if (common) candidates.push(path.resolve(common, '../../shared/docs/protocol.md'));
  return candidates.find((p): p is string => !!p && existsSync(p));
}

export function readProtocolMd(file: string): string {
  return readFileSync(file, 'utf8');
}

/** The main checkout's .git directory (the same as the worktree's own outside a worktree). */
function gitCommonDir(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}
