/**
 * The shape of the command line as data: a command is a table of options,
 * and each option says its flag, value kind, environment variable, default
 * and help text. Parsing (parse-command-line.ts), help (help.ts) and the
 * documentation tables (docs-tables.ts) all read these tables, so they cannot
 * drift apart. The tables themselves live in commands.ts.
 */

/** What an option's value must be; checked for flags and environment values alike. */
export type ValueKind =
  | { readonly kind: 'switch' }
  | { readonly kind: 'text' }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'choice'; readonly values: readonly string[] }
  | { readonly kind: 'cron' }
  | { readonly kind: 'peers' };

export interface OptionSpec {
  /** Long flag without dashes (`port`); for an environment-only setting, a name for it in code. */
  readonly name: string;
  /** False for a setting read only from the environment (secrets: never on a command line). */
  readonly isFlag: boolean;
  readonly short?: string;
  readonly value: ValueKind;
  /** Environment variable read when the flag is absent. */
  readonly env?: string;
  /** The value's name in help: `--port PORT`. */
  readonly placeholder?: string;
  /** The default as the docs show it (Markdown: `` `8080` ``, `off`, `generated`). */
  readonly defaultText?: string;
  readonly help: string;
  /** The command refuses to run without it (exit 2). */
  readonly isRequired?: boolean;
  /** A secret (a key, a password): never echoed in an error, shown redacted by `eddydb config`. */
  readonly isSecret?: boolean;
}

export const COMMAND_NAMES = [
  'start',
  'snapshot',
  'compact',
  'verify',
  'export',
  'import',
  'backup',
  'restore',
  'config',
  'help',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  readonly name: CommandName;
  /** One line for the command list. */
  readonly summary: string;
  /** What follows `eddydb <name>` in the usage line. */
  readonly usage: string;
  /** A few lines for the command's own help. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** Name of the one optional positional argument, when the command takes one (`help [command]`). */
  readonly positional?: string;
}

/** `--port PORT`, `-h, --help`, or the environment variable for an environment-only setting. */
export function flagLabel(o: OptionSpec): string {
  if (!o.isFlag) return o.env ?? o.name;
  const long = `--${o.name}${o.placeholder ? ` ${o.placeholder}` : ''}`;
  return o.short ? `-${o.short}, ${long}` : long;
}
