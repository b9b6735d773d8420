#!/usr/bin/env node
// @ts-check
/**
 * Builds dist/ from lib/ with TypeScript, and knows when dist/ is out of date.
 *
 * The build writes dist/.build-stamp whose mtime is the moment the build
 * started (or its newest input, if later). dist/ is stale when that stamp or
 * the CLI entry is missing, or when a .ts file or folder under lib/ (or a
 * tsconfig) is newer than the stamp.
 * That walk costs a few milliseconds, so `bin/eddydb.js` can run it on every
 * start and build only when the sources changed. Plain JavaScript on purpose:
 * it must run before anything is compiled.
 *
 *   node bin/build.js             build now (what `npm run build` runs)
 *   node bin/build.js --if-stale  build only when dist/ is out of date (`prepare`)
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (the folder holding package.json). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the launcher imports; its absence means dist/ was never built or was half removed. */
export const CLI_ENTRY = path.join(ROOT, 'dist', 'lib', 'cli', 'main.js');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const BUILD_INFO = path.join(ROOT, 'dist', '.tsbuildinfo');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

/** Newest mtime (ms) of the .ts files and folders under `dir` (folders: a file was added, removed or renamed). */
function newestSource(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** True when this copy has TypeScript sources (a clone); a packed install ships only dist/. */
export function hasSources() {
  return existsSync(path.join(ROOT, 'lib')) && existsSync(path.join(ROOT, 'tsconfig.build.json'));
}

/**
 * Why dist/ must be (re)built, or undefined when it is current.
 * @returns {string | undefined}
 */
export function staleReason() {
  if (!existsSync(CLI_ENTRY)) return 'dist/ has not been built';
  if (!hasSources()) return undefined;
  if (!existsSync(STAMP)) return 'dist/ has no build stamp';
  return newestInput() > statSync(STAMP).mtimeMs ? 'lib/ changed since the last build' : undefined;
}

/** Newest mtime (ms) of what the build reads: lib/ and the tsconfig files. */
function newestInput() {
  const configs = CONFIGS.map((f) => statSync(path.join(ROOT, f)).mtimeMs);
  return Math.max(newestSource(path.join(ROOT, 'lib')), ...configs);
}

/** Path of the TypeScript compiler, or undefined when typescript is not installed. */
function findTsc() {
  try {
    return createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/**
 * Compiles lib/ into dist/ (tsc -p tsconfig.build.json), its output on stderr,
 * and stamps the build. SIGINT/SIGTERM meanwhile stop the compiler too.
 * @returns {Promise<void>} rejects with a one-line message when the build cannot run or fails
 */
export async function build() {
  if (!hasSources()) throw new Error('this copy of eddydb has no sources to build (lib/, tsconfig.build.json)');
  const tsc = findTsc();
  if (!tsc) throw new Error('TypeScript is not installed, so dist/ cannot be built: run `npm install` in ' + ROOT);
  // tsc's incremental info would otherwise skip emitting files it believes are still in dist/.
  if (!existsSync(CLI_ENTRY)) rmSync(BUILD_INFO, { force: true });
  // Never older than the inputs built, so a file dated in the future (clock skew) cannot force a build on every
  // start; rounded up a millisecond because mtimes are fractional and a Date is not.
  const stampTime = new Date(Math.ceil(Math.max(Date.now(), newestInput())) + 1);
  const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  const forward = (/** @type {NodeJS.Signals} */ signal) => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(signal ? signal : c)));
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  if (typeof code === 'string') throw new Error(`the build was stopped (${code})`);
  if (code !== 0) throw new Error(`the TypeScript build failed (exit ${code}); see the errors above`);
  closeSync(openSync(STAMP, 'w'));
  utimesSync(STAMP, stampTime, stampTime);
}

/**
 * Builds when dist/ is stale, saying why on stderr; does nothing otherwise.
 * @returns {Promise<boolean>} whether a build ran
 */
export async function ensureBuilt() {
  const reason = staleReason();
  if (!reason) return false;
  process.stderr.write(`eddydb: building dist/ (${reason}), once; later starts skip this...\n`);
  await build();
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const onlyIfStale = process.argv.includes('--if-stale');
  if (onlyIfStale && hasSources() && !findTsc()) {
    // `prepare` of an install without development dependencies: TypeScript is one, so the build is left to
    // `npm run build` (the production recipe builds before it prunes them: docs/operations.md).
    process.stderr.write(
      'eddydb: dist/ not built here: TypeScript is a development dependency (npm run build with them installed)\n',
    );
    process.exit(0);
  }
  (onlyIfStale ? ensureBuilt() : build()).catch((/** @type {Error} */ err) => {
    process.stderr.write(`eddydb: ${err.message}\n`);
    process.exit(1);
  });
}
