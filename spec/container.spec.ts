/**
 * The container image's files, read as the image check reads them
 * (.ci/image/dockerfile.mjs, build-context.mjs), in milliseconds: what CI's
 * `node .ci/image-check.mjs` would only find minutes in. The runtime stage
 * runs `eddydb start` as a user other than root with the data on /data;
 * the HEALTHCHECK command, run as a process, passes against a ready server
 * and fails against a closed port; compose.yaml says the same health check,
 * volume and a stop grace longer than the shutdown timeout; .dockerignore
 * sends every file the build stage copies and never a data directory, an
 * env file or node_modules.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SHUTDOWN_TIMEOUT_SECS } from '../lib/cli/config.js';
import { TestServer } from './helpers/test-server.js';

interface Instruction {
  op: string;
  value?: string;
  env?: Record<string, string>;
  argv?: string[];
  paths?: string[];
  sources?: string[];
  from?: string;
  skip?: string;
}
interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}
interface DockerfileModule {
  readDockerfile(file: string): { args: Record<string, string>; stages: Stage[] };
  readCompose(file: string): { test: string[]; volumes: string[]; stopGraceSecs: number | undefined };
}
interface BuildContextModule {
  dockerIgnore(dir: string): (relative: string) => boolean;
}

const ROOT = path.resolve('.');
// Plain JavaScript run by CI before anything is built; loaded by path so TypeScript does not look for types.
const imageDir = path.join(ROOT, '.ci', 'image');
const { readDockerfile, readCompose } = (await import(path.join(imageDir, 'dockerfile.mjs'))) as DockerfileModule;
const { dockerIgnore } = (await import(path.join(imageDir, 'build-context.mjs'))) as BuildContextModule;

describe('the container image files', () => {
  const { stages } = readDockerfile(path.join(ROOT, 'Dockerfile'));
  const runtime = stages[stages.length - 1]!;
  const last = (op: string) => runtime.instructions.filter((i) => i.op === op).at(-1);
  const env = Object.assign({}, ...runtime.instructions.filter((i) => i.op === 'ENV').map((i) => i.env));
  const healthcheck = last('HEALTHCHECK')!.argv!;

  it('builds with the development dependencies and runs with the production ones, on the same base image', () => {
    expect(stages.map((s) => s.name)).to.deep.equal(['build', 'runtime']);
    expect(stages[0]!.image).to.equal(runtime.image);
    expect(runtime.image).to.match(/^node:20-bookworm-slim$/);
    const runs = stages[0]!.instructions.filter((i) => i.op === 'RUN' && !i.skip).map((i) => i.value);
    expect(runs).to.deep.equal([
      'npm ci --no-audit --no-fund',
      'npm run build',
      'npm prune --omit=dev --no-audit --no-fund',
    ]);
    expect(runtime.instructions.filter((i) => i.op === 'RUN' && !i.skip)).to.deep.equal([]);
    expect(runtime.instructions.filter((i) => i.op === 'COPY').every((i) => i.from === 'build')).to.equal(true);
  });

  it('runs eddydb start as a user other than root, with the data on the /data volume', () => {
    expect(last('USER')!.value).to.equal('node');
    expect(last('VOLUME')!.paths).to.deep.equal(['/data']);
    expect(env).to.include({ EDDYDB_DATA_DIR: '/data', PORT: '8080' });
    expect(last('EXPOSE')!.value).to.equal('8080');
    expect(last('STOPSIGNAL')!.value).to.equal('SIGTERM');
    expect(last('CMD')!.argv).to.deep.equal(['node', 'bin/eddydb.js', 'start']);
  });

  it('has a HEALTHCHECK command that passes against a ready server and fails against a closed port', async () => {
    expect(healthcheck.join(' ')).to.include('/api/health/ready');
    // Asynchronously: the server answering it runs in this process.
    const run = (port: number) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(healthcheck[0]!, healthcheck.slice(1), { env: { ...process.env, PORT: String(port) } });
        child.on('exit', (code) => resolve(code));
      });
    const t = await TestServer.start({ memory: true });
    let port: number;
    try {
      port = Number(new URL(t.url).port);
      expect(await run(port)).to.equal(0);
    } finally {
      await t.stop();
    }
    expect(await run(port)).to.equal(1);
  });

  it('has a compose example with the same health check, the /data volume and a stop grace past the timeout', () => {
    const compose = readCompose(path.join(ROOT, 'compose.yaml'));
    expect(compose.test).to.deep.equal(['CMD', ...healthcheck]);
    expect(compose.volumes).to.include('/data');
    expect(compose.stopGraceSecs).to.be.greaterThan(SHUTDOWN_TIMEOUT_SECS);
  });

  it('sends every file the build stage copies, and no data directory, env file or node_modules', () => {
    const ignored = dockerIgnore(ROOT);
    const copied = stages[0]!.instructions.filter((i) => i.op === 'COPY').flatMap((i) => i.sources!);
    for (const source of [...copied, 'lib/http/server.ts', 'lib/cli/native-memory.cc', 'bin/eddydb.js'])
      expect(ignored(source), source).to.equal(false);
    for (const kept of [
      'data/admin.key',
      'data',
      'eddydb.env',
      'node_modules/ws/index.js',
      'dist/lib/index.js',
      '.git',
    ])
      expect(ignored(kept), kept).to.equal(true);
  });
});
