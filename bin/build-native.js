#!/usr/bin/env node
// @ts-check
/**
 * `npm install`'s install step: builds the optional native addons
 * (binding.gyp: lib/cli/native-memory.cc, lib/http/wire/msgpack-json.cc,
 * lib/engine/storage/native-lock.cc) with the node-gyp that npm ships,
 * against the headers npm is configured with, and on x64 Linux hnswlib's
 * AVX2 and AVX-512 builds (lib/vector/native/binding.gyp), copied beside
 * them into build/Release. A failure only warns: the server runs without
 * them (lib/cli/native-memory.ts, lib/http/wire/msgpack-json.ts,
 * lib/engine/storage/lock.ts and lib/vector/native/hnswlib-build.ts say
 * what each costs).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
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

/** Runs node-gyp's rebuild in `dir`; a failure's last lines, or undefined. */
function rebuild(gyp, dir) {
  if (gyp === undefined) return 'node-gyp not found (npm ships it)';
  const built = spawnSync(process.execPath, [gyp, 'rebuild', ...nodedirArgs()], { cwd: dir, encoding: 'utf8' });
  if (built.status === 0) return undefined;
  return `${built.stderr ?? ''}${built.stdout ?? ''}`.trim().split('\n').slice(-5).join('\n');
}

/** hnswlib's vector-extension builds, where they run: x64 Linux (hnswlib-build.ts reads /proc/cpuinfo). */
const HNSWLIB_BUILDS = process.platform === 'linux' && process.arch === 'x64' ? ['hnswlib_avx2', 'hnswlib_avx512'] : [];
const HNSWLIB_DIR = path.join(ROOT, 'lib', 'vector', 'native');

const gyp = nodeGyp();
const failed = rebuild(gyp, ROOT);
if (failed !== undefined) {
  process.stderr.write(
    `eddydb: the optional native addons were not built; the server runs without idle memory compaction, decodes ` +
      `MessagePack bodies with msgpackr only, and locks its data directory without flock (an abstract socket on ` +
      `Linux, the pid elsewhere).\n${failed}\n`,
  );
}
if (HNSWLIB_BUILDS.length > 0 && existsSync(path.join(HNSWLIB_DIR, 'binding.gyp'))) {
  const failedHnsw = rebuild(gyp, HNSWLIB_DIR);
  if (failedHnsw === undefined) {
    mkdirSync(path.join(ROOT, 'build', 'Release'), { recursive: true });
    for (const name of HNSWLIB_BUILDS)
      copyFileSync(
        path.join(HNSWLIB_DIR, 'build', 'Release', `${name}.node`),
        path.join(ROOT, 'build', 'Release', `${name}.node`),
      );
  } else {
    process.stderr.write(
      `eddydb: hnswlib's AVX2 and AVX-512 builds were not built; HNSW graphs run on hnswlib-node's own build (SSE), ` +
        `their inserts about 12% and their searches about 20% slower.\n${failedHnsw}\n`,
    );
  }
  rmSync(path.join(HNSWLIB_DIR, 'build'), { recursive: true, force: true });
}
