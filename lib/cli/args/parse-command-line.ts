/**
 * argv -> the command to run and its option values, through node's own
 * util.parseArgs in strict mode with the command's option table. Every
 * mistake is a one-line UsageError (exit 2): an unknown command or option
 * with the closest known one suggested, a missing or stray value, a bad
 * value (option-values.ts), a missing required option. Help is recognised
 * before values are checked, so `--help` works beside a bad value. Values
 * the command line and the environment leave unset come from the config
 * file when one is named (config-file.ts).
 */
import { parseArgs } from 'node:util';
import { COMMANDS, isCommandName } from './commands.js';
import { closest } from './closest.js';
import { configFileValues } from './config-file.js';
import { COMMAND_NAMES, type CommandName, type CommandSpec } from './option-spec.js';
import { OptionValues, UsageError } from './option-values.js';

export interface CommandLine {
  readonly command: CommandName;
  /** No command word was given: `eddydb` and `eddydb --port 9000` run start. */
  readonly isImplicit: boolean;
  /** `--help` or `-h` was given: print help, run nothing (`values` are then unchecked and empty). */
  readonly wantsHelp: boolean;
  readonly values: OptionValues;
  /** The command's positional argument (`help export`). */
  readonly positional?: string;
}

type ParseConfig = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** Reads the command line. Throws UsageError for any mistake in it. */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): CommandLine {
  const first = argv[0];
  const isImplicit = first === undefined || first.startsWith('-');
  if (!isImplicit && !isCommandName(first)) throw unknownCommand(first);
  const command: CommandName = isImplicit ? 'start' : (first as CommandName);
  const spec = COMMANDS[command];
  const args = isImplicit ? [...argv] : argv.slice(1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: parseConfig(spec),
      strict: true,
      allowPositionals: spec.positional !== undefined,
    });
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) throw err;
    throw describeMistake(spec, args, err as Error);
  }
  const flags = parsed.values as Record<string, string | boolean | undefined>;
  if (parsed.positionals.length > 1) throw new UsageError(`unexpected argument '${parsed.positionals[1]}'`);
  const positional = parsed.positionals[0];
  if (flags.help === true)
    return { command, isImplicit, wantsHelp: true, values: new OptionValues([], {}, {}), positional };
  const values = new OptionValues(spec.options, flags, env, configFileValues(spec, flags, env));
  for (const o of spec.options) {
    if (o.isRequired && !values.has(o.name))
      throw new UsageError(`${command} needs --${o.name}${o.placeholder ? ` ${o.placeholder}` : ''}`);
  }
  return { command, isImplicit, wantsHelp: false, values, positional };
}

/** `unknown command 'strat'; did you mean 'start'?` */
export function unknownCommand(word: string): UsageError {
  const near = closest(word, COMMAND_NAMES);
  return new UsageError(
    `unknown command '${word}'; ${near ? `did you mean '${near}'?` : "run 'eddydb help' for the commands"}`,
  );
}

function parseConfig(spec: CommandSpec): ParseConfig {
  const config: ParseConfig = {};
  for (const o of spec.options) {
    if (!o.isFlag) continue;
    config[o.name] = { type: o.value.kind === 'switch' ? 'boolean' : 'string', ...(o.short ? { short: o.short } : {}) };
  }
  return config;
}

/**
 * Strict parsing failed: find the offending argument among the lenient
 * parse's tokens and say what is wrong with it in our words. Falls back to
 * node's own first line if no token explains the failure.
 */
function describeMistake(spec: CommandSpec, args: string[], err: Error): UsageError {
  const flags = new Map(spec.options.filter((o) => o.isFlag).map((o) => [o.name, o]));
  const { tokens } = parseArgs({
    args,
    options: parseConfig(spec),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind === 'option') {
      const o = flags.get(t.name);
      if (!o) return unknownOption(spec, t.rawName);
      const isSwitch = o.value.kind === 'switch';
      if (isSwitch && t.value !== undefined)
        return new UsageError(`option '${t.rawName}' takes no value (got '${t.value}')`);
      if (!isSwitch && t.value === undefined) return new UsageError(`option '${t.rawName}' needs a value`);
      if (!isSwitch && !t.inlineValue && t.value!.startsWith('-')) {
        return new UsageError(
          `option '${t.rawName}' needs a value; to pass one starting with '-', write ${t.rawName}=${t.value}`,
        );
      }
    } else if (t.kind === 'positional' && spec.positional === undefined) {
      const hint = isCommandName(t.value) ? `; the command goes first: 'eddydb ${t.value} ...'` : '';
      return new UsageError(`unexpected argument '${t.value}'${hint}`);
    }
  }
  return new UsageError(err.message.split('\n')[0]!);
}

/** `unknown option '--prot'; did you mean '--port'?` (suggested from this command's flags). */
function unknownOption(spec: CommandSpec, raw: string): UsageError {
  const names = spec.options.filter((o) => o.isFlag).map((o) => o.name);
  const near = raw.startsWith('--') ? closest(raw.slice(2).split('=')[0]!, names) : undefined;
  return new UsageError(
    `unknown option '${raw}'; ` +
      `${near ? `did you mean '--${near}'?` : `run 'eddydb ${spec.name} --help' for the options`}`,
  );
}
