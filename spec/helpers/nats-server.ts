/**
 * Real nats-server processes with JetStream for the cluster specs: one
 * server, or a three-server NATS cluster, on free loopback ports with their
 * storage in temporary directories. `nats-server` is Debian's (.ci/run
 * installs it); specs skip when it is missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { removeDir, tempDir } from './temp-dir.js';

export interface NatsProcess {
  readonly url: string;
  readonly port: number;
  proc: ChildProcess;
  /** Starts it again after a kill, on the same port and storage. */
  restart(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface NatsFixture {
  readonly servers: readonly NatsProcess[];
  /** Every client URL, comma separated (what `--nats` takes). */
  readonly urls: string;
  stop(): Promise<void>;
}

export function natsServerAvailable(): boolean {
  return spawnSync('nats-server', ['--version']).status === 0;
}

/** A free TCP port on 127.0.0.1 (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One server, or (`count` 3) a NATS cluster whose servers route to each other. */
export async function startNats(count: 1 | 3 = 1): Promise<NatsFixture> {
  const dir = tempDir('eddydb-nats-');
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: count }, () => freePort()));
  const servers = ports.map((port, i) => {
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', `${dir}/n${i}`, '-n', `n${i}`];
    if (count > 1) {
      const others = routes.map((r) => `nats://127.0.0.1:${r}`).join(',');
      args.push('--cluster_name', 'eddy', '--cluster', `nats://127.0.0.1:${routes[i]}`, '--routes', others);
    }
    return natsProcess(port, args);
  });
  await Promise.all(servers.map((s) => s.restart()));
  if (count > 1) await new Promise((r) => setTimeout(r, 1500)); // the meta group elects a leader
  return {
    servers,
    urls: servers.map((s) => s.url).join(','),
    stop: async () => {
      await Promise.all(servers.map((s) => s.kill('SIGKILL')));
      removeDir(dir);
    },
  };
}

function natsProcess(port: number, args: string[]): NatsProcess {
  const self: NatsProcess = {
    url: `nats://127.0.0.1:${port}`,
    port,
    proc: undefined as unknown as ChildProcess,
    restart: async () => {
      self.proc = spawn('nats-server', args, { stdio: 'ignore' });
      await waitForPort(port, 10_000);
    },
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        const proc = self.proc;
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill(signal);
      }),
  };
  return self;
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
