#!/usr/bin/env node
// @ts-check
/**
 * Builds dist/ from lib/ with TypeScript, and knows when dist/ is out of date.
 *
 * The build writes dist/.build-stamp whose mtime is the moment the build
 * started (or its newest input, if later). dist/ is stale when that stamp or
 * the CLI entry is missing, or when a source file or folder under lib/ or
 * console/ (or a tsconfig) is newer than the stamp.
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
/** The browser console's sources; built into dist/console. */
const CONSOLE_SRC = path.join(ROOT, 'console');

/** Newest mtime (ms) of the .ts files and folders under `dir` (folders: a file was added, removed or renamed). */
function newestSource(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(ts|tsx|css|html)$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
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

/** Newest mtime (ms) of what the build reads: lib/, the console's sources and the tsconfig files. */
function newestInput() {
  const configs = CONFIGS.map((f) => statSync(path.join(ROOT, f)).mtimeMs);
  const consoleSources = existsSync(CONSOLE_SRC) ? [newestSource(CONSOLE_SRC)] : [];
  return Math.max(newestSource(path.join(ROOT, 'lib')), ...consoleSources, ...configs);
}

/** Path of Vite's command line, or undefined when vite is not installed. */
function findVite() {
  try {
    // Its package exports only its API (dist/node/index.js); the command line sits beside it in bin/.
    const api = createRequire(path.join(ROOT, 'package.json')).resolve('vite');
    return path.join(path.dirname(api), '..', '..', 'bin', 'vite.js');
  } catch {
    return undefined;
  }
}

/**
 * Builds the browser console (console/, Preact with Vite) into dist/console, which the server serves at `/`.
 * Skipped, with a note, when this copy has no console sources or Vite is not installed.
 * @returns {Promise<void>} rejects with a one-line message when the build fails
 */
async function buildConsole() {
  if (!existsSync(CONSOLE_SRC)) return;
  const vite = findVite();
  if (!vite) {
    process.stderr.write('eddydb: the console is not built: Vite is a development dependency (npm install)\n');
    return;
  }
  const args = [vite, 'build', '--config', path.join(CONSOLE_SRC, 'vite.config.js')];
  const code = await run(args);
  if (typeof code === 'string') throw new Error(`the console build was stopped (${code})`);
  if (code !== 0) throw new Error(`the console build failed (exit ${code}); see the errors above`);
}

/**
 * Runs node with `args` in the package root, its output on stderr; SIGINT/SIGTERM meanwhile stop it too.
 * @param {string[]} args
 * @returns {Promise<number | string>} the exit code, or the signal that stopped it
 */
async function run(args) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
  const forward = (/** @type {NodeJS.Signals} */ signal) => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(signal ? signal : c)));
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  return code;
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
 * Compiles lib/ into dist/ (tsc -p tsconfig.build.json) and the console into
 * dist/console (Vite), their output on stderr, and stamps the build. SIGINT/SIGTERM meanwhile stop the compiler too.
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
  const code = await run([tsc, '-p', 'tsconfig.build.json']);
  if (typeof code === 'string') throw new Error(`the build was stopped (${code})`);
  if (code !== 0) throw new Error(`the TypeScript build failed (exit ${code}); see the errors above`);
  await buildConsole();
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
