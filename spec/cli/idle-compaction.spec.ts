/**
 * Idle compaction (lib/cli/idle-compaction.ts): the decision driven by
 * readings, the native addon it needs (built by `npm install`), and a real
 * `eddydb start` that compacts once its recovered data has grown its
 * resident memory and it has been quiet.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';
import { COMMANDS } from '../../lib/cli/args/commands.js';
import {
  compactNow,
  IDLE_COMPACTION_DEFAULTS,
  IDLE_COMPACTION_TICK_MS,
  IdleCompactionPolicy,
} from '../../lib/cli/idle-compaction.js';
import { loadNativeMemory, type NativeMemory } from '../../lib/cli/native-memory.js';
import { spawnCli } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const MB = 2 ** 20;
const options = {
  minGrowthBytes: 64 * MB,
  minGrowthShare: 0.25,
  idleTicks: 2,
  quietRequests: 5,
  quietUtilization: 0.25,
};
/** Share of a tick the event loop was busy: an idle process reads a few percent. */
const LOOP_IDLE = 0.05;
/** Requests taken during a tick. */
const BUSY = 500,
  IDLE = 0;

describe('idle compaction: the decision', () => {
  it("has the default the option's help shows (spelled out there so that help loads no server code)", () => {
    const option = COMMANDS.start.options.find((o) => o.name === 'idle-compaction-mb')!;
    expect(option.defaultText).to.equal(`\`${IDLE_COMPACTION_DEFAULTS.minGrowthBytes / MB}\``);
  });

  it('by default, compacts after three quiet quarter seconds: a probe twice a second is quiet, two requests in a tick are not', () => {
    expect(IDLE_COMPACTION_DEFAULTS.idleTicks * IDLE_COMPACTION_TICK_MS).to.equal(750);
    const p = new IdleCompactionPolicy(100 * MB);
    expect(p.shouldCompact(600 * MB, BUSY, 0.9), 'the load').to.equal(false);
    expect(p.shouldCompact(600 * MB, 1, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 2, LOOP_IDLE), 'two requests in a quarter second').to.equal(false);
    expect(p.shouldCompact(600 * MB, 0, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 1, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 0, LOOP_IDLE)).to.equal(true);
  });

  it('waits for two idle ticks after the growth', () => {
    const p = new IdleCompactionPolicy(100 * MB, options);
    expect(p.shouldCompact(600 * MB, BUSY, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, IDLE, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, IDLE, LOOP_IDLE)).to.equal(true);
  });

  it('counts a tick with a few requests (a health probe, light traffic) as quiet, and one with more as busy', () => {
    const p = new IdleCompactionPolicy(100 * MB, options);
    expect(p.shouldCompact(600 * MB, 5, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 6, LOOP_IDLE), 'six requests in a tick').to.equal(false);
    expect(p.shouldCompact(600 * MB, 1, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 5, LOOP_IDLE)).to.equal(true);
  });

  it('counts a tick with few requests but a busy event loop (a bulk load of large batches) as busy', () => {
    const p = new IdleCompactionPolicy(100 * MB, options);
    expect(p.shouldCompact(600 * MB, 3, 0.9)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 3, 0.6), 'three 10,000-record batches in a tick').to.equal(false);
    expect(p.shouldCompact(600 * MB, 3, 0.25)).to.equal(false);
    expect(p.shouldCompact(600 * MB, 0, 0.02), 'the load is over').to.equal(true);
  });

  it('starts counting idle ticks again after a busy one', () => {
    const p = new IdleCompactionPolicy(100 * MB, options);
    expect(p.shouldCompact(600 * MB, IDLE, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, BUSY, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, IDLE, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(600 * MB, IDLE, LOOP_IDLE)).to.equal(true);
  });

  it('does nothing for growth under the byte threshold', () => {
    const p = new IdleCompactionPolicy(100 * MB, options);
    for (let i = 0; i < 5; i++) expect(p.shouldCompact(163 * MB, IDLE, LOOP_IDLE)).to.equal(false);
  });

  it('asks a big process to grow by a quarter first (its pause is longer)', () => {
    const p = new IdleCompactionPolicy(4000 * MB, options);
    for (let i = 0; i < 5; i++) expect(p.shouldCompact(4900 * MB, IDLE, LOOP_IDLE)).to.equal(false);
    expect(p.shouldCompact(5000 * MB, IDLE, LOOP_IDLE)).to.equal(true);
  });

  it('measures growth from the lowest reading, and from what a compaction left', () => {
    const p = new IdleCompactionPolicy(300 * MB, options);
    p.shouldCompact(100 * MB, BUSY, LOOP_IDLE);
    p.shouldCompact(180 * MB, IDLE, LOOP_IDLE);
    expect(p.shouldCompact(180 * MB, IDLE, LOOP_IDLE), '80 MB above the low of 100').to.equal(true);
    p.compacted(170 * MB);
    p.shouldCompact(200 * MB, IDLE, LOOP_IDLE);
    expect(p.shouldCompact(200 * MB, IDLE, LOOP_IDLE), '30 MB above what the compaction left').to.equal(false);
  });
});

describe('idle compaction: the native addon', function () {
  this.timeout(30_000);
  let native: NativeMemory;
  before(() => {
    const loaded = loadNativeMemory();
    if ('unavailable' in loaded) throw new Error(`npm install builds it on this machine: ${loaded.unavailable}`);
    native = loaded;
  });

  it('says why when it was not built, instead of failing', () => {
    const missing = loadNativeMemory([path.join(path.sep, 'nonexistent', 'eddydb-root')]);
    expect(missing)
      .to.have.property('unavailable')
      .that.matches(/build\/Release\/eddydb_memory\.node was not built/);
  });

  it('trims malloc and reports whether it released memory', () => {
    expect(native.trimMalloc()).to.be.a('boolean');
  });

  /**
   * Page faults (from /proc) of a child that allocates three 4 MB buffers,
   * writes them, lets them go and collects, ten times; with `keep`, after
   * keepFreedMemory. By default glibc unmaps the freed blocks, so each round
   * faults all 3,072 pages in again.
   */
  function faultsPerRound(keep: boolean): number[] {
    const child = `
      const addon = require(process.argv[1]);
      if (process.argv[2] === 'keep' && addon.keepFreedMemory(32 * 2 ** 20, 64 * 2 ** 20) !== true) process.exit(3);
      const minflt = () => Number(require('fs').readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[7]);
      const faults = [];
      for (let i = 0; i < 10; i++) {
        const before = minflt();
        let held = [1, 2, 3].map(() => Buffer.allocUnsafeSlow(4 << 20).fill(1));
        held = null;
        global.gc();
        faults.push(minflt() - before);
      }
      console.log(JSON.stringify(faults));`;
    const addon = path.resolve('build/Release/eddydb_memory.node');
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', child, addon, keep ? 'keep' : 'default'], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as number[];
  }

  function median(values: number[]): number {
    return [...values].sort((a, b) => a - b)[values.length >> 1]!;
  }

  it('keeps freed blocks for reuse: freed buffers are written again without faulting their pages in', function () {
    if (process.platform !== 'linux') this.skip();
    const kept = faultsPerRound(true).slice(1);
    const unmapped = faultsPerRound(false).slice(1);
    // A round now and then differs either way (the child's own heap grows, glibc reuses a block): medians, not each.
    expect(median(kept), `faults per round after keepFreedMemory: ${kept}`).to.be.below(300);
    expect(median(unmapped), `faults per round by default: ${unmapped}`).to.be.above(2000);
  });

  it('takes only two sizes that fit an int', () => {
    const keep = native.keepFreedMemory as (...args: unknown[]) => boolean | undefined;
    expect(keep()).to.equal(undefined);
    expect(keep(-1, 5)).to.equal(undefined);
    expect(keep(2 ** 31, 5)).to.equal(undefined);
    expect(keep('32', 5)).to.equal(undefined);
  });

  it('compacts: the major collection is seen, then the arenas are trimmed', async () => {
    let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `value ${i}` }));
    expect(garbage.length).to.equal(200_000);
    garbage = undefined;
    const c = await compactNow(native);
    expect(c.pauseMs, 'the pause of the major collection').to.be.a('number');
    expect(c.rssAfter).to.be.greaterThan(0);
    expect(c.ms).to.be.lessThan(10_000);
    expect(c.longestHoldMs).to.be.a('number').and.to.be.at.least(0);
  });
});

describe('idle compaction: eddydb start', function () {
  this.timeout(90_000);

  it(
    'compacts once its recovered data has grown resident memory and it has been quiet (a health probe twice a ' +
      'second), and keeps serving',
    async () => {
      const dir = tempDir('eddydb-cli-compaction-');
      const dataDir = path.join(dir, 'data');
      const db = await Database.open({ dataDir, settings: { durability: 'none' } });
      // Enough that recovery grows resident memory by more than a quarter (the process starts at about 140 MB under
      // tsx).
      for (let i = 0; i < 8; i++)
        await db.bulk.insertMany(
          'notes',
          Array.from({ length: 10_000 }, (_, k) => ({ title: `note ${i}-${k}`, body: `${k} `.repeat(100), n: k })),
        );
      await db.close();
      const {
        proc: server,
        output,
        exited,
      } = spawnCli(
        ['start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--idle-compaction-mb', '1'],
        {
          EDDYDB_ADMIN_KEY: 'compaction-spec-admin-key-0123456789',
        },
      );
      // A probe every 500 ms: a quiet server still, whose compaction it must not put off.
      let probes = 0;
      const probe = setInterval(() => {
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output());
        if (m)
          void fetch(`http://127.0.0.1:${m[1]}/api/health`).then(
            (r) => {
              probes += r.ok ? 1 : 0;
            },
            () => undefined,
          );
      }, 500);
      try {
        await until('the compaction line', () => output().includes('idle compaction: resident memory'), 60_000, 50);
        expect(probes, 'health probes answered while it waited').to.be.greaterThan(0);
        expect(output()).to.match(
          /idle compaction: resident memory \d+ MB -> \d+ MB in \d+ ms \(event loop held at most \d+ ms, final pause \d+ ms\)/,
        );
        const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())![1]);
        const health = await fetch(`http://127.0.0.1:${port}/api/health`);
        expect(health.status).to.equal(200);
        server.kill('SIGTERM');
        expect((await exited).code, output()).to.equal(0);
      } finally {
        clearInterval(probe);
        server.kill('SIGKILL');
        removeDir(dir);
      }
    },
  );
});
