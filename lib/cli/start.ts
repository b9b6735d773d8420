/**
 * `eddydb start`: runs the server until SIGINT or SIGTERM, or until the
 * parent process dies when that is watched (parent-watch.ts); each shuts
 * down cleanly (requests in flight and in-flight writes finish, a final
 * snapshot is written, the data lock is released) within
 * `--shutdown-timeout`, or the process exits 1 naming what was still running.
 *
 * A start that cannot bind writes and prints nothing: the port is probed
 * before the data directory is opened, and the admin key is generated only
 * once listen() has bound it (closing the gap a port taken in between
 * would leave).
 */
import net from 'node:net';
import { MEMORY_ONLY, Server } from '../http/index.js';
import type { OptionValues } from './args/option-values.js';
import { serverConfig, shutdownTimeoutMsOf } from './config.js';
import { shouldWatchParent, watchParent } from './parent-watch.js';
import { growHeapForServing } from './heap-growth.js';
import { IDLE_COMPACTION_DEFAULTS, startIdleCompaction } from './idle-compaction.js';
import { keepFreedMemory, loadNativeMemory, type NativeMemory } from './native-memory.js';
import { readTlsFiles, reloadTlsFiles, tlsFilesOf } from './tls-files.js';
import { findHelperThreads, lowerDuringLongWork, type HelperThreads } from './helper-priority.js';

/**
 * Starts the server; resolves once it listens (or once a signal during
 * startup has begun its shutdown). Throws what Server.create or listen throw
 * (main.ts describes it). The signal handlers are installed first: a SIGTERM
 * while the data is recovered, the port bound or the admin key made stops
 * the server once that step has settled, cleanly (the data lock released),
 * instead of killing the process with the lock held.
 */
export async function runStart(values: OptionValues, env: NodeJS.ProcessEnv): Promise<void> {
  const config = serverConfig(values);
  const tlsFiles = tlsFilesOf(values);
  const tls = tlsFiles && readTlsFiles(tlsFiles);
  // Before recovery: what recovery leaves behind counts as growth (idle-compaction.ts).
  const startRss = process.memoryUsage.rss();
  // Loaded once: malloc's settings now, before recovery (it reads segments and snapshots a few MB at a time), and
  // idle compaction once the server serves.
  const native = loadNativeMemory();
  keepFreedMemory(native);
  keepStdioErrorsFromStopping();
  let server: Server | undefined;
  /** The startup step in progress: a stop waits for it before closing. */
  let step: Promise<unknown> = Promise.resolve();
  let stopping = false;
  /** What the startup step in progress is doing, for a stop that runs out of time during it. */
  let stepName = 'the start';
  let stopWatching = (): void => undefined;
  let stopCompacting = (): void => undefined;
  let stopLowering = (): void => undefined;
  const stop = (reason: string) => {
    // npm and the terminal may both deliver Ctrl-C: one shutdown is enough.
    if (stopping) return;
    stopping = true;
    stopWatching();
    stopCompacting();
    stopLowering();
    console.log(`${reason}, shutting down`);
    const timeoutMs = shutdownTimeoutMsOf(values);
    setTimeout(() => {
      const pending = server?.pendingClose() ?? [];
      server?.flushLog();
      exitTimedOut(timeoutMs, pending.length > 0 ? pending : [stepName], config.memory === true);
    }, timeoutMs);
    step
      .catch(() => undefined)
      .then(() => server?.close())
      .then(
        () => process.exit(0),
        (err) => {
          console.error(`eddydb: shutdown failed: ${(err as Error).stack ?? String(err)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT received'));
  process.on('SIGTERM', () => stop('SIGTERM received'));
  // With TLS, SIGHUP reads the certificate and key again (one during the start: once listening); without, it keeps
  // its default.
  let isHangupPending = false;
  if (tlsFiles)
    process.on('SIGHUP', () => {
      if (server?.httpServer.listening) reloadTlsFiles(server, tlsFiles);
      else isHangupPending = true;
    });
  // From the start, like the signal handlers: the chain of parents is read now, so a parent that dies while
  // the data is recovered (or just after the listening line, before the rest of the start) is still seen.
  if (shouldWatchParent(values.isOn('watch-parent'), env)) {
    stopWatching = watchParent((what) => stop(what));
  }
  let helpers: HelperThreads | undefined;
  stepName = 'finding the helper threads';
  if (values.text('helper-priority') !== 'normal') helpers = await (step = findHelperThreads());
  if (stopping) return;
  stepName = `probing port ${config.port}`;
  if (config.port !== 0) await (step = probePort(config.host, config.port));
  if (stopping) return;
  stepName = config.memory ? 'making the memory-only database' : `opening (recovering) ${config.dataDir}`;
  const creating = Server.create({ ...config, tls, adminKeyAfterListen: true });
  step = creating;
  server = await creating;
  if (stopping) return;
  growHeapForServing();
  stepName = `binding ${config.host}:${config.port}`;
  const listening = server.listen();
  step = listening;
  let port: number;
  try {
    port = await listening;
  } catch (err) {
    if (stopping) return;
    // The bind failure is what the user must see; a failure to close after it would only hide it.
    await server.close().catch(() => undefined);
    throw err;
  }
  if (stopping) return;
  const storage = config.memory ? MEMORY_ONLY : `data in ${config.dataDir}`;
  console.log(`EddyDB listening on ${server.isTls ? 'https' : 'http'}://${config.host}:${port} (${storage})`);
  if (tlsFiles && isHangupPending) reloadTlsFiles(server, tlsFiles);
  if (helpers) stopLowering = helperPriority(server, helpers);
  stopCompacting = idleCompaction(values, server, startRss, native);
}

/** Ends a stop that ran out of time: exit code 1, and what it still waited for. */
function exitTimedOut(timeoutMs: number, pending: readonly string[], memory: boolean): never {
  const recovery = memory
    ? ''
    : ' Every acknowledged write is in the log: the next start recovers it and records the schedule runs cut short ' +
      'as interrupted.';
  console.error(
    `eddydb: the shutdown did not finish within ${timeoutMs / 1000} s (--shutdown-timeout), exiting with code 1; ` +
      `still running: ${pending.join('; ')}.${recovery}`,
  );
  process.exit(1);
}

/** Starts idle compaction unless `--idle-compaction-mb 0`; says so when the native addon is missing. */
function idleCompaction(
  values: OptionValues,
  server: Server,
  startRss: number,
  native: NativeMemory | { unavailable: string },
): () => void {
  const mb = values.int('idle-compaction-mb');
  if (mb === 0) return () => undefined;
  const options =
    mb === undefined ? IDLE_COMPACTION_DEFAULTS : { ...IDLE_COMPACTION_DEFAULTS, minGrowthBytes: mb * 2 ** 20 };
  if ('unavailable' in native) {
    server.log('info', `idle compaction off: ${native.unavailable}`);
    return () => undefined;
  }
  return startIdleCompaction(native, server.log, () => server.dispatcher.requests, options, startRss);
}

/** Lowers V8's helper threads while long work runs (helper-priority.ts); says so, or why not. */
function helperPriority(server: Server, helpers: HelperThreads): () => void {
  if ('unavailable' in helpers) {
    server.log('info', `V8 helper threads left at their priority: ${helpers.unavailable}`);
    return () => undefined;
  }
  server.log(
    'info',
    `V8 helper threads (${helpers.threads.length}) at a low priority while long work runs; the I/O pool's ` +
      `${helpers.pool} threads unchanged`,
  );
  return lowerDuringLongWork(helpers.threads);
}

/** Binds `host:port` for a moment; rejects with the bind error (EADDRINUSE, EACCES...). */
function probePort(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * A dead parent can take the reading end of our stdout or stderr with it; a
 * write then fails with EPIPE, which must not stop the clean shutdown.
 */
function keepStdioErrorsFromStopping(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}
