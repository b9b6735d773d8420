import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  chooseHnswlibBuild,
  cpuFlags,
  HNSWLIB_BUILDS,
  hnswlibBuild,
  type Hnswlib,
} from '../../lib/vector/native/hnswlib-build.js';
import { randomVectors } from '../helpers/seeded-random.js';

const require = createRequire(import.meta.url);
const packageBuild = require('hnswlib-node') as Hnswlib;
const builtFile = (file: string) => path.resolve('build', 'Release', file);

describe('hnswlib builds (lib/vector/native)', () => {
  describe('cpuFlags', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'eddydb-cpuinfo-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("reads the first processor's flags from a cpuinfo file", () => {
      const file = path.join(dir, 'cpuinfo');
      writeFileSync(
        file,
        'processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma avx512f\n\n' +
          'processor\t: 1\nflags\t\t: fpu sse2\n',
      );
      expect([...cpuFlags(file)]).to.deep.equal(['fpu', 'sse2', 'avx2', 'fma', 'avx512f']);
    });

    it('is empty where there is no such file or no flags line', () => {
      expect(cpuFlags(path.join(dir, 'missing')).size).to.equal(0);
      writeFileSync(path.join(dir, 'cpuinfo'), 'processor\t: 0\n');
      expect(cpuFlags(path.join(dir, 'cpuinfo')).size).to.equal(0);
    });
  });

  describe('chooseHnswlibBuild', () => {
    /** Every build made, found at `/built/<file>`. */
    const all = (file: string) => `/built/${file}`;
    const flags = (...f: string[]) => new Set(f);

    it('takes the best build the CPU runs', () => {
      expect(chooseHnswlibBuild(flags('sse2', 'avx2', 'fma', 'avx512f', 'avx512bw'), all, undefined).name).to.equal(
        'avx512',
      );
      expect(
        chooseHnswlibBuild(flags('sse2', 'avx2', 'fma', 'avx512f'), all, undefined).name,
        'AVX-512 without BW',
      ).to.equal('avx2');
      expect(chooseHnswlibBuild(flags('sse2', 'avx2', 'fma'), all, undefined).name).to.equal('avx2');
    });

    it("keeps the package's build on a CPU without AVX2 and FMA, or without cpuinfo", () => {
      expect(chooseHnswlibBuild(flags('sse2', 'avx'), all, undefined).name).to.equal('package');
      expect(chooseHnswlibBuild(flags('avx2'), all, undefined).name).to.equal('package');
      expect(chooseHnswlibBuild(flags(), all, undefined).name).to.equal('package');
    });

    it('skips a build that was not made', () => {
      const avx2Only = (file: string) => (file === 'hnswlib_avx2.node' ? `/built/${file}` : undefined);
      expect(chooseHnswlibBuild(flags('avx2', 'fma', 'avx512f'), avx2Only, undefined).name).to.equal('avx2');
      expect(chooseHnswlibBuild(flags('avx2', 'fma', 'avx512f'), () => undefined, undefined).name).to.equal('package');
    });

    it("keeps the package's build when EDDYDB_HNSWLIB_BUILD says package, and the best when it says auto", () => {
      expect(chooseHnswlibBuild(flags('avx2', 'fma', 'avx512f'), all, 'package')).to.deep.equal({ name: 'package' });
      expect(chooseHnswlibBuild(flags('avx2', 'fma', 'avx512f', 'avx512bw'), all, 'auto')).to.deep.equal({
        name: 'avx512',
        path: '/built/hnswlib_avx512.node',
      });
      expect(chooseHnswlibBuild(flags('avx2', 'fma'), all, '')).to.deep.equal({
        name: 'avx2',
        path: '/built/hnswlib_avx2.node',
      });
    });

    it('says so when EDDYDB_HNSWLIB_BUILD is neither, and takes the best', () => {
      const chosen = chooseHnswlibBuild(flags('avx2', 'fma'), all, 'avx9');
      expect(chosen.name).to.equal('avx2');
      expect(chosen.ignored).to.equal(
        'EDDYDB_HNSWLIB_BUILD=avx9 is neither auto nor package: the best build this CPU runs is used',
      );
      expect(chooseHnswlibBuild(flags(), all, 'Package').ignored).to.match(/^EDDYDB_HNSWLIB_BUILD=Package /);
    });
  });

  it('runs the build chosen for this CPU and what was built', () => {
    const expected = chooseHnswlibBuild(
      cpuFlags(),
      (file) => (existsSync(builtFile(file)) ? builtFile(file) : undefined),
      process.env.EDDYDB_HNSWLIB_BUILD,
    ).name;
    expect(hnswlibBuild).to.equal(expected);
  });

  describe('each build this CPU runs, against the package build', () => {
    const runnable = HNSWLIB_BUILDS.filter((b) => b.needs.every((f) => cpuFlags().has(f)));
    // 35 dimensions: hnswlib's wide kernels take 32 and its residual kernel the last 3.
    const D = 35;
    const data = randomVectors(2000, D, 11);
    const queries = randomVectors(50, D, 12);

    function graph(lib: Hnswlib): InstanceType<Hnswlib['HierarchicalNSW']> {
      const index = new lib.HierarchicalNSW('l2', D);
      index.initIndex({ maxElements: data.length, m: 16, efConstruction: 100, randomSeed: 100 });
      data.forEach((v, i) => index.addPoint(v, i));
      index.setEf(64);
      return index;
    }

    const exact = queries.map((q) =>
      data
        .map((v, i) => ({ i, d: v.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, 10)
        .map((h) => h.i),
    );
    const recall = (index: InstanceType<Hnswlib['HierarchicalNSW']>) =>
      queries.reduce((n, q, k) => n + index.searchKnn(q, 10).neighbors.filter((i) => exact[k]!.includes(i)).length, 0) /
      (queries.length * 10);

    for (const build of HNSWLIB_BUILDS) {
      it(`${build.name}: finds the neighbours the package build finds, and reads its graph files`, function () {
        if (!runnable.includes(build) || !existsSync(builtFile(build.file))) this.skip();
        const simd = require(builtFile(build.file)) as Hnswlib;
        const own = graph(simd);
        expect(recall(own)).to.be.at.least(0.95);
        expect(Math.abs(recall(own) - recall(graph(packageBuild)))).to.be.at.most(0.02);
        // The same graph file searched by either build: the same neighbours, distances within float rounding.
        const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-hnswlib-'));
        try {
          const file = path.join(dir, 'graph.bin');
          own.writeIndexSync(file);
          const again = new packageBuild.HierarchicalNSW('l2', D);
          again.readIndexSync(file);
          again.setEf(64);
          for (const q of queries) {
            const a = own.searchKnn(q, 10);
            const b = again.searchKnn(q, 10);
            expect(b.neighbors).to.deep.equal(a.neighbors);
            b.distances.forEach((d, i) => expect(d).to.be.closeTo(a.distances[i]!, 1e-4 * Math.max(1, d)));
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
});
