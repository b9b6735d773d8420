/**
 * Differential fuzzing of the native MessagePack-to-JSON rewrite
 * (lib/http/wire/msgpack-json.cc) under AddressSanitizer and
 * UndefinedBehaviorSanitizer, against msgpackr (spec/fuzz/msgpack-cases.ts
 * makes the bodies and judges each answer).
 *
 *   npm run fuzz:codec                          500,000 bodies, seed 1
 *   npm run fuzz:codec -- --short               30,000 bodies (CI)
 *   npm run fuzz:codec -- --iterations N --seed S
 *
 * How: the addon's source is compiled by g++ with -fsanitize=address,undefined
 * into build/fuzz/ (node-gyp is not used: its flags would need a second
 * binding.gyp target), against the node headers that bin/build-native.js
 * uses; then this file runs again as a worker under node with libasan
 * preloaded (LD_PRELOAD: the sanitizer runtime must come before everything
 * else, and node itself is not instrumented), loads that build and checks
 * every body. Each body is copied into its own allocation first: a small
 * Buffer is a slice of a shared 8 KiB pool, where a read past its end would
 * land in the pool and go unseen. A sanitizer report stops the worker with
 * its stack; a disagreement prints the seed, the body's index and its bytes.
 * Needs g++ and the node headers (both already needed by `npm install` to
 * build the addon); clang is not required.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pack } from 'msgpackr';
import { mulberry32 } from '../helpers/seeded-random.js';
import { checkBody, edgeBodies, nextBody, type Rewrite } from './msgpack-cases.js';

const HERE = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(HERE), '..', '..');
const SOURCE = path.join(ROOT, 'lib', 'http', 'wire', 'msgpack-json.cc');
const OUT_DIR = path.join(ROOT, 'build', 'fuzz');
const ADDON = path.join(OUT_DIR, 'eddydb_codec_sanitized.node');

interface Options {
  iterations: number;
  seed: number;
  worker: string | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  const opts: Options = { iterations: 500_000, seed: 1, worker: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--short') opts.iterations = 30_000;
    else if (arg === '--iterations') opts.iterations = Number(argv[++i]);
    else if (arg === '--seed') opts.seed = Number(argv[++i]);
    else if (arg === '--worker') opts.worker = argv[++i];
    else fail(`unknown argument '${arg}' (use --short, --iterations N, --seed S)`);
  }
  if (!Number.isInteger(opts.iterations) || opts.iterations < 1) fail('--iterations takes a positive integer');
  if (!Number.isInteger(opts.seed)) fail('--seed takes an integer');
  return opts;
}

function fail(message: string): never {
  process.stderr.write(`fuzz:codec: ${message}\n`);
  process.exit(1);
}

/** The node headers: npm's configured ones, or those installed beside this node (as bin/build-native.js finds them). */
function nodeHeaders(): string {
  const candidates = [
    process.env.npm_config_nodedir && path.join(process.env.npm_config_nodedir, 'include', 'node'),
    path.resolve(path.dirname(process.execPath), '..', 'include', 'node'),
  ];
  const found = candidates.find((d) => d && existsSync(path.join(d, 'node.h')));
  return found || fail(`node.h not found in ${candidates.filter(Boolean).join(' or ')}`);
}

/** The sanitizer runtime g++ links against, which must be preloaded into node. */
function sanitizerRuntime(): string {
  const printed = spawnSync('g++', ['-print-file-name=libasan.so'], { encoding: 'utf8' });
  const file = printed.stdout?.trim() ?? '';
  if (printed.status !== 0 || !path.isAbsolute(file) || !existsSync(file))
    fail('g++ with AddressSanitizer (libasan) is needed');
  return file;
}

function buildSanitized(): void {
  mkdirSync(OUT_DIR, { recursive: true });
  const flags = [
    '-std=c++17',
    '-O1',
    '-g',
    '-fno-omit-frame-pointer',
    '-fsanitize=address,undefined',
    '-fno-sanitize-recover=all',
    '-shared',
    '-fPIC',
    '-I',
    nodeHeaders(),
    SOURCE,
    '-o',
    ADDON,
  ];
  const built = spawnSync('g++', flags, { encoding: 'utf8' });
  if (built.status !== 0) fail(`g++ ${flags.join(' ')} failed:\n${built.stderr}${built.stdout}`);
}

/** Compiles, then runs the worker under the sanitizers; exits with the worker's status. */
function runParent(opts: Options): void {
  const started = performance.now();
  const runtime = sanitizerRuntime();
  buildSanitized();
  const buildSeconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `fuzz:codec: built ${path.relative(ROOT, ADDON)} with -fsanitize=address,undefined in ${buildSeconds} s\n`,
  );
  const worker = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      HERE,
      '--worker',
      ADDON,
      '--iterations',
      String(opts.iterations),
      '--seed',
      String(opts.seed),
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        LD_PRELOAD: runtime,
        // node and V8 keep memory until exit on purpose: leaks are not what is looked for here.
        ASAN_OPTIONS: 'detect_leaks=0:halt_on_error=1:exitcode=86',
        UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1:exitcode=87',
      },
    },
  );
  if (worker.status !== 0)
    fail(
      `the worker ${worker.signal ? `was killed by ${worker.signal}` : `exited with ${worker.status}`} (86: ` +
        `AddressSanitizer, 87: UndefinedBehaviorSanitizer, 1: a disagreement; see above)`,
    );
}

/** Checks the edge bodies, then `iterations` seeded bodies, with the sanitized addon. */
function runWorker(addonFile: string, opts: Options): void {
  const addon = createRequire(import.meta.url)(addonFile) as { msgpackAsJson: Rewrite };
  const rewrite: Rewrite = (body) => {
    const own = Buffer.allocUnsafeSlow(body.length);
    body.copy(own);
    return addon.msgpackAsJson(own);
  };
  const started = performance.now();
  const edges = edgeBodies();
  for (const edge of edges) {
    const outcome = checkBody(edge.body, rewrite);
    if (outcome !== edge.outcome) fail(`edge body '${edge.name}': ${outcome}, expected ${edge.outcome}`);
  }
  releaseLargeTexts(rewrite);
  const rnd = mulberry32(opts.seed);
  const counts = { rewritten: 0, declined: 0 };
  for (let i = 0; i < opts.iterations; i++) {
    const body = nextBody(rnd);
    try {
      counts[checkBody(body, rewrite)]++;
    } catch (err) {
      fail(`body ${i} of seed ${opts.seed}: ${(err as Error).message}\nfull body: ${body.toString('hex')}`);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `fuzz:codec: ${opts.iterations} bodies of seed ${opts.seed} and ${edges.length} edge bodies agree with msgpackr ` +
      `(${counts.rewritten} rewritten, ${counts.declined} declined) in ${seconds} s, with no sanitizer report\n`,
  );
}

/**
 * A large text is an external string over the rewrite's own buffer, freed
 * when the string is collected: collect the edge bodies' texts while one is
 * still held, so that the release runs under the sanitizers too, and read
 * the held one after.
 */
function releaseLargeTexts(rewrite: Rewrite): void {
  const body = pack({ held: 'x'.repeat(256 * 1024) });
  const held = rewrite(body);
  if (held === undefined) fail('a 256 KiB string of letters was declined');
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  const value = JSON.parse(held) as { held: string };
  if (value.held.length !== 256 * 1024) fail('a held large text changed after a collection');
}

const opts = parseArgs(process.argv.slice(2));
if (opts.worker !== undefined) runWorker(opts.worker, opts);
else runParent(opts);
