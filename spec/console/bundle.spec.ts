/**
 * The console's bundle budget: what the first page loads (the entry script, its static imports and the style
 * sheets index.html names) stays under 300 KB gzipped. Pages loaded on demand are not part of the first page.
 * Skipped when the console has not been built (npm run build).
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { defaultConsoleDir } from '../../lib/http/console/index.js';

const BUDGET = 300 * 1024;

/** The assets the first page fetches: index.html's scripts and styles, and each script's static imports. */
function firstPageAssets(dir: string): string[] {
  const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
  const queue = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  while (queue.length) {
    const asset = queue.pop()!;
    if (seen.has(asset)) continue;
    seen.add(asset);
    if (!asset.endsWith('.js')) continue;
    const code = readFileSync(path.join(dir, asset), 'utf8');
    // Static imports only (`import ... from "./x.js"` and bare `import "./x.js"`); import() loads on demand.
    for (const m of code.matchAll(/(?:^|[;}\n])\s*import\s*(?:[^"'();]*?\bfrom\s*)?["'](\.\/[^"']+)["']/g))
      queue.push(path.posix.join(path.posix.dirname(asset), m[1]!));
  }
  return [...seen];
}

describe('console bundle budget', () => {
  const dir = defaultConsoleDir();

  it('loads at most 300 KB gzipped for the first page', function () {
    if (!existsSync(path.join(dir, 'index.html'))) return this.skip();
    const assets = firstPageAssets(dir);
    expect(assets.some((a) => a.endsWith('.js'))).to.equal(true);
    const sizes = assets.map((a) => gzipSync(readFileSync(path.join(dir, a))).length);
    const total = sizes.reduce((x, y) => x + y, 0);
    expect(total, assets.map((a, i) => `${a}: ${sizes[i]} B`).join(', ')).to.be.below(BUDGET);
  });

  it('ships no source map and no asset from another origin', function () {
    if (!existsSync(path.join(dir, 'index.html'))) return this.skip();
    const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
    expect(html).to.not.match(/(?:src|href)="(?:https?:)?\/\//);
    for (const a of firstPageAssets(dir))
      expect(readFileSync(path.join(dir, a), 'utf8')).to.not.include('sourceMappingURL');
  });
});
