/**
 * The server grows V8's old generation by a factor of two between full
 * collections once its data is recovered (heap-growth.ts), unless node's
 * command line set the factor. The flag is set in a child process: it is
 * process-wide.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { growHeapForServing } from '../../lib/cli/heap-growth.js';
import { cleanEnv } from '../helpers/run-cli.js';

const MODULE = path.resolve('lib/cli/heap-growth.ts');

describe('heap growth while serving', () => {
  it("leaves the factor to node's command line when it names one, in either spelling", () => {
    for (const arg of ['--heap-growing-percent=30', '--heap_growing_percent=30', '--heap-growing-percent'])
      expect(growHeapForServing(['--max-old-space-size=512', arg]), arg).to.equal(false);
  });

  it('sets the factor otherwise, and the process goes on allocating and collecting', () => {
    const script = [
      `import { growHeapForServing } from ${JSON.stringify(MODULE)};`,
      `const set = growHeapForServing(['--max-old-space-size=512']);`,
      // Enough retained and dropped data for several collections under the new factor.
      'const kept = [];',
      'for (let i = 0; i < 20000; i++) { const list = new Array(256).fill(i); if (i % 4 === 0) kept.push(list); }',
      'console.log(JSON.stringify({ set, kept: kept.length }));',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: cleanEnv({}),
      timeout: 60_000,
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).to.deep.equal({ set: true, kept: 5000 });
  });
});
