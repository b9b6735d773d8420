/**
 * `npm run bench:docs [-- --force]`: rewrites the results table of
 * docs/benchmarks.md (between <!-- bench:begin --> and <!-- bench:end -->)
 * from bench/results/*.json. Results marked noisy are refused unless --force
 * (or BENCH_FORCE_NOISY=1). See bench/lib/docs-table.ts.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateTable, replaceSection, type ResultFile } from './lib/docs-table.js';

const force = process.argv.includes('--force') || process.env.BENCH_FORCE_NOISY === '1';
const dir = path.resolve('bench/results');
const results = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as ResultFile);
const { markdown, skippedNoisy } = generateTable(results, { force });
if (skippedNoisy.length)
  console.warn(`bench:docs: left out noisy results (use --force to include them): ${skippedNoisy.join(', ')}`);
const doc = path.resolve('docs/benchmarks.md');
writeFileSync(doc, replaceSection(readFileSync(doc, 'utf8'), markdown));
console.log(`docs/benchmarks.md: results table regenerated from ${results.length - skippedNoisy.length} result files`);
