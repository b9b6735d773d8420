/**
 * Enforces the dependency direction of architecture.md:
 *   errors <- vector <- engine <- functions <- workflow <- chat <- http (<- cli, testing, package entry points)
 *   engine <- cluster <- http (a cluster over NATS JetStream: on the engine alone)
 *   errors <- outbound <- functions, workflow, chat, http (every request leaving the server; on errors alone)
 * and that folders import each other only through their index.ts. The package
 * entry points are the files directly under lib/ other than errors.ts
 * (lib/index.ts, lib/express.ts): like cli they may import any layer, and no
 * layer imports them.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describeCycles } from './helpers/import-cycles.js';

const LIB = path.resolve('lib');
const ALLOWED: Record<string, string[]> = {
  errors: [],
  vector: ['errors'],
  engine: ['errors', 'vector'],
  cluster: ['errors', 'vector', 'engine'],
  outbound: ['errors'],
  functions: ['errors', 'vector', 'engine', 'outbound'],
  workflow: ['errors', 'vector', 'engine', 'outbound', 'functions'],
  chat: ['errors', 'vector', 'engine', 'outbound', 'functions', 'workflow'],
  http: ['errors', 'vector', 'engine', 'cluster', 'outbound', 'functions', 'workflow', 'chat'],
  cli: ['errors', 'vector', 'engine', 'cluster', 'outbound', 'functions', 'workflow', 'chat', 'http'],
  testing: ['errors', 'vector', 'engine', 'cluster', 'outbound', 'functions', 'workflow', 'chat', 'http'],
  entry: ['errors', 'vector', 'engine', 'cluster', 'outbound', 'functions', 'workflow', 'chat', 'http', 'testing'],
};

/**
 * A folder root holds at most this many source files (the .ts files directly in it, index.ts included), so
 * that a folder's name says what lives in it: past that, a folder gets rooms by concern.
 */
const MAX_FILES_PER_FOLDER = 12;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function layerOf(file: string): string {
  const rel = path.relative(LIB, file);
  if (rel === 'errors.ts') return 'errors';
  const parts = rel.split(path.sep);
  return parts.length === 1 ? 'entry' : parts[0]!;
}

/**
 * `import … from`, `import type … from`, `export … from`, side-effect
 * `import '…'`, and `import('…')` (dynamic imports and type expressions).
 * A `;` ends the search for `from`, so a statement cannot borrow the
 * specifier of a later one.
 */
const IMPORT =
  /(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

/** The names an `import … from` or `export … from` clause brings in, with `import('…').Name` type expressions. */
const IMPORT_CLAUSE = /(?:import|export)\s([^'";]*?)from\s+['"][^'"]+['"]/g;

/** Whether a source text imports the name `Database` (a value, a type, or renamed). */
function importsDatabase(text: string): boolean {
  for (const m of text.matchAll(IMPORT_CLAUSE)) if (/\bDatabase\b/.test(m[1]!)) return true;
  return /import\(\s*['"][^'"]+['"]\s*\)\.Database\b/.test(text);
}

describe('architecture', () => {
  const files = walk(LIB);

  it('finds the source tree', () => {
    expect(files.length).to.be.greaterThan(20);
  });

  /** Every relative import under lib/: the importing file, its layer, the specifier, and the target file and layer. */
  function* relativeImports() {
    for (const file of files) {
      const from = layerOf(file);
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
        yield { file, from, spec, target, to: layerOf(target) };
      }
    }
  }

  it('imports only along the allowed dependency direction', () => {
    const violations: string[] = [];
    for (const { file, from, spec, to } of relativeImports()) {
      if (to !== from && !ALLOWED[from]?.includes(to)) violations.push(`${path.relative(LIB, file)} -> ${spec}`);
    }
    expect(violations).to.deep.equal([]);
  });

  it('reaches into another folder only through its index.ts', () => {
    const violations: string[] = [];
    for (const { file, from, spec, target, to } of relativeImports()) {
      if (to === from || to === 'errors') continue;
      if (path.relative(path.join(LIB, to), target) !== 'index.ts')
        violations.push(`${path.relative(LIB, file)} -> ${spec}`);
    }
    expect(violations).to.deep.equal([]);
  });

  it('has no import cycle inside lib/ (type imports included)', () => {
    const graph = new Map<string, Set<string>>(files.map((f) => [path.relative(LIB, f), new Set<string>()]));
    for (const { file, target } of relativeImports()) {
      const to = path.relative(LIB, target);
      if (graph.has(to)) graph.get(path.relative(LIB, file))!.add(to);
    }
    expect(describeCycles(graph), 'import cycles, each as a path from a file back to itself').to.deep.equal([]);
  });

  it('resolves every relative import under lib/ to a source file', () => {
    const unresolved = [...relativeImports()]
      .filter(({ target }) => !files.includes(target))
      .map(({ file, spec }) => `${path.relative(LIB, file)} -> ${spec}`);
    expect(unresolved).to.deep.equal([]);
  });

  it('imports the engine façade Database only in the engine, the composition root and the offline tools', () => {
    // Everything else is handed the services it uses (a session, the key-value store...), never the whole database.
    const allowed = (rel: string) =>
      rel.startsWith(`engine${path.sep}`) || rel.startsWith(`cli${path.sep}`) || rel === path.join('http', 'server.ts');
    const importers = files.filter((f) => !allowed(path.relative(LIB, f)) && importsDatabase(readFileSync(f, 'utf8')));
    expect(importers.map((f) => path.relative(LIB, f))).to.deep.equal([]);
  });

  it('keeps every source file under the 600-line cap', () => {
    const big = files.filter((f) => readFileSync(f, 'utf8').split('\n').length > 600).map((f) => path.relative(LIB, f));
    expect(big).to.deep.equal([]);
  });

  it(`keeps at most ${MAX_FILES_PER_FOLDER} source files in a folder root`, () => {
    const entries = (dir: string) => readdirSync(dir).map((f) => path.join(dir, f));
    const foldersUnder = (dir: string): string[] => [
      dir,
      ...entries(dir)
        .filter((p) => statSync(p).isDirectory())
        .flatMap(foldersUnder),
    ];
    const crowded = foldersUnder(LIB)
      .map((dir) => ({ dir, count: entries(dir).filter((p) => p.endsWith('.ts') && statSync(p).isFile()).length }))
      .filter(({ count }) => count > MAX_FILES_PER_FOLDER)
      .map(({ dir, count }) => `${path.relative(LIB, dir) || 'lib'}: ${count} files`);
    expect(crowded).to.deep.equal([]);
  });
});
