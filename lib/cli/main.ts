#!/usr/bin/env node
/**
 * The `eddydb` command: reads the command line (args/), then prints help,
 * starts the server (start.ts) or runs an offline tool (tools.ts).
 * Exit codes: 0 done (or help shown), 1 a known failure, told in one or two
 * lines (failure.ts), or an unexpected one, with its stack; 2 a mistake on
 * the command line, told in one line. The server and the engine are loaded
 * only for a command that needs them, so help and usage errors are instant.
 */
import { COMMANDS, isCommandName } from './args/commands.js';
import { commandHelp, generalHelp } from './args/help.js';
import { UsageError } from './args/option-values.js';
import { parseCommandLine, unknownCommand, type CommandLine } from './args/parse-command-line.js';
import { effectiveConfig } from './args/effective-config.js';
import { dataDirOf, serverConfig } from './config.js';
import { tlsFilesOf } from './tls-files.js';
import { describeFailure, type FailureContext } from './failure.js';

/** Runs the command; resolves with an exit code, or undefined while the server runs. */
async function run(line: CommandLine): Promise<number | undefined> {
  if (line.wantsHelp) return showHelp(line.isImplicit ? undefined : line.command);
  switch (line.command) {
    case 'help':
      return showHelp(line.positional);
    case 'config':
      return showConfig(line);
    case 'start':
      if (line.values.isOn('version')) return print((await import('../http/index.js')).VERSION);
      await (await import('./start.js')).runStart(line.values, process.env);
      return undefined;
    default:
      return (await import('./tools.js')).runTool(line.command, line);
  }
}

/** Help for `command`, or the overview; exit 0 (2 for an unknown command). */
function showHelp(command: string | undefined): number {
  if (command === undefined) return print(generalHelp());
  if (!isCommandName(command)) throw unknownCommand(command);
  return print(commandHelp(COMMANDS[command]));
}

/** `eddydb config`: the start options checked as start checks them (exit 2 if it would refuse), then shown. */
function showConfig(line: CommandLine): number {
  serverConfig(line.values);
  tlsFilesOf(line.values);
  return print(effectiveConfig('start', COMMANDS.config.options, line.values));
}

function print(text: string): number {
  console.log(text);
  return 0;
}

/** What failure.ts may name in a message: the address and data directory the command was given. */
function failureContext(line: CommandLine | undefined): FailureContext {
  if (!line || line.wantsHelp) return {};
  const v = line.values;
  const dataDir = v.isOn('memory') ? undefined : dataDirOf(v);
  return { dataDir, port: v.int('port') ?? 8080, host: v.text('host') ?? '0.0.0.0' };
}

async function main(): Promise<void> {
  let line: CommandLine | undefined;
  try {
    line = parseCommandLine(process.argv.slice(2), process.env);
    const code = await run(line);
    if (code !== undefined) process.exit(code);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`eddydb: ${err.message}`);
      process.exit(2);
    }
    const known = describeFailure(err, failureContext(line));
    console.error(`eddydb: ${known ?? `unexpected error: ${(err as Error).stack ?? String(err)}`}`);
    process.exit(1);
  }
}

void main();
