#!/usr/bin/env node
/**
 * The `eddydb` command. `start` runs the server until SIGINT/SIGTERM, which
 * shut it down cleanly (in-flight writes finish, a final snapshot is taken).
 */
import { Server } from '../http/index.js';
import { Corruption, DbError } from '../errors.js';
import { parseArgs, serverConfig } from './config.js';
import { runTool } from './tools.js';

async function start(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const config = serverConfig(args, process.env);
  const server = await Server.create(config);
  const port = await server.listen();
  console.log(`EddyDB listening on http://${config.host}:${port} (data in ${config.dataDir})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    server.close().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { command } = parseArgs(argv);
  if (command === 'start') return start(argv);
  const code = await runTool(parseArgs(argv));
  process.exit(code);
}

main().catch((err) => {
  // Expected failures (corruption, a locked directory) get their message; anything else its stack too.
  const known = err instanceof DbError || err instanceof Corruption;
  console.error(`eddydb: ${known ? (err as Error).message : (err as Error).stack ?? String(err)}`);
  process.exit(1);
});
