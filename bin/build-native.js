#!/usr/bin/env node
// @ts-check
/**
 * `npm install`'s install step: builds the optional native addons
 * (binding.gyp: lib/cli/native-memory.cc, lib/http/wire/msgpack-json.cc,
 * lib/engine/storage/native-lock.cc) with the node-gyp that npm ships,
 * against the headers npm is configured with. A failure only warns: the
 * server runs without them (lib/cli/native-memory.ts, lib/http/wire/msgpack-json.ts
 * and lib/engine/storage/lock.ts say what each costs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './build.js';

/** npm's own node-gyp: npm names it in the environment of the scripts it runs. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(
      path.dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  return candidates.find((p) => p !== undefined && existsSync(p));
}

/**
 * Outside npm (no npm_config_nodedir), the headers installed beside this
 * node, so that node-gyp does not try to download them.
 */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? [`--nodedir=${prefix}`] : [];
}

const gyp = nodeGyp();
const built =
  gyp === undefined
    ? { status: 1, stdout: '', stderr: 'node-gyp not found (npm ships it)' }
    : spawnSync(process.execPath, [gyp, 'rebuild', ...nodedirArgs()], { cwd: ROOT, encoding: 'utf8' });
if (built.status !== 0) {
  const why = `${built.stderr ?? ''}${built.stdout ?? ''}`.trim().split('\n').slice(-5).join('\n');
  process.stderr.write(
    `eddydb: the optional native addons were not built; the server runs without idle memory compaction, decodes ` +
      `MessagePack bodies with msgpackr only, and locks its data directory without flock (an abstract socket on ` +
      `Linux, the pid elsewhere).\n${why}\n`,
  );
}
