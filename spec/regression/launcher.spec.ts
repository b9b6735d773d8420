/**
 * `npm start` rebuilt with tsc on every start, and
 * the `eddydb` bin (dist/lib/cli/main.js) lost its run bit on a clean build.
 * The launcher bin/eddydb.js builds only when lib/ changed since the last
 * build, then runs dist/lib/cli/main.js in its own process. Tested on a
 * scratch package holding copies of bin/ and a one-file lib/ (so each build
 * takes a moment), through real processes.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve('.');

const BUILD_CONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    types: [],
    lib: ['es5'],
    outDir: 'dist',
    rootDir: '.',
    incremental: true,
    tsBuildInfoFile: 'dist/.tsbuildinfo',
  },
  include: ['lib/**/*.ts'],
};

/** A stand-in for lib/cli/main.ts that needs no type packages (so each build takes a moment). */
const mainSource = (word: string) =>
  `declare const process: { argv: string[] };\ndeclare const console: { log(...items: unknown[]): void };\n` +
  `console.log('${word}', process.argv.slice(2).join(' '));\n`;

describe('the eddydb launcher builds once', function () {
  this.timeout(60_000);
  let pkg: string;
  const main = () => path.join(pkg, 'lib', 'cli', 'main.ts');
  const launch = (...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(pkg, 'bin', 'eddydb.js'), ...args], { encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** Marks main.ts as edited after the last build (mtime a minute ahead, so no clock granularity matters). */
  const edit = (source: string) => {
    writeFileSync(main(), source);
    const later = new Date(Date.now() + 60_000);
    utimesSync(main(), later, later);
  };

  beforeEach(() => {
    pkg = tempDir('eddydb-i9-launcher-');
    mkdirSync(path.join(pkg, 'bin'));
    for (const f of ['eddydb.js', 'build.js', 'v8-flags.js'])
      copyFileSync(path.join(ROOT, 'bin', f), path.join(pkg, 'bin', f));
    mkdirSync(path.join(pkg, 'lib', 'cli'), { recursive: true });
    writeFileSync(main(), mainSource('v1'));
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'scratch', type: 'module' }));
    writeFileSync(path.join(pkg, 'tsconfig.json'), '{}');
    writeFileSync(path.join(pkg, 'tsconfig.build.json'), JSON.stringify(BUILD_CONFIG));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  });
  afterEach(() => removeDir(pkg));

  it(
    'builds on the first start, saying why on stderr, runs the command line with its arguments, and does not build ' +
      'again while lib/ is unchanged',
    () => {
      const first = launch('start', '--port', '1');
      expect(first.stderr).to.include('building dist/ (dist/ has not been built)');
      expect(first.stdout).to.equal('v1 start --port 1\n');
      expect(first.code).to.equal(0);
      const second = launch('verify');
      expect(second.stderr).to.equal('');
      expect(second.stdout).to.equal('v1 verify\n');
    },
  );

  it(
    'rebuilds when a source file is newer than the last build, and everything when dist/lib was removed but the ' +
      'incremental build info was kept',
    () => {
      launch();
      edit(mainSource('v2'));
      const edited = launch();
      expect(edited.stderr).to.include('(lib/ changed since the last build)');
      expect(edited.stdout).to.equal('v2 \n');
      expect(launch().stderr, 'a source dated in the future is built once, not on every start').to.equal('');
      rmSync(path.join(pkg, 'dist', 'lib'), { recursive: true });
      const removed = launch();
      expect(removed.stderr).to.include('(dist/ has not been built)');
      expect(removed.stdout).to.equal('v2 \n');
    },
  );

  it('stops with exit 1 and the compiler errors when the build fails, without running the old build', () => {
    launch();
    edit(`const n: number = 'not a number';\nexport { n };\n`);
    const r = launch();
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include("Type 'string' is not assignable to type 'number'");
    expect(r.stderr).to.include('eddydb: the TypeScript build failed');
    expect(r.stdout).to.equal('');
  });

  it('says how to fix it when a build is needed and TypeScript is not installed', () => {
    rmSync(path.join(pkg, 'node_modules'));
    const r = launch();
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include('TypeScript is not installed, so dist/ cannot be built: run `npm install`');
  });

  it('is the package bin, committed executable, so a clean rebuild cannot take its run bit away', () => {
    const pkgJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkgJson.bin).to.deep.equal({ eddydb: 'bin/eddydb.js' });
    expect(pkgJson.scripts.start).to.equal('exec node bin/eddydb.js start');
    const staged = spawnSync('git', ['ls-files', '-s', 'bin/eddydb.js'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    expect(staged).to.match(/^100755 /);
  });
});
