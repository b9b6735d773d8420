/**
 * The config file (`--config FILE`, EDDYDB_CONFIG): TOML holding the options
 * of the commands under their flags' own names, `data-dir = "/srv/eddydb"`
 * (environment-only settings too: `admin-key`). A key at the top level
 * serves every command that takes that option; a section named after a
 * command (`[start]`, `[export]`) serves that command alone and wins over
 * the top level. Keys and sections are checked against the command tables
 * (commands.ts), so a typo is an error naming the closest known key, never
 * a setting silently ignored; values are checked by OptionValues.
 *
 * smol-toml parses (TOML 1.1, integers kept exact as bigint). It gives the
 * line of a syntax error; the line of a key is found here, for errors about
 * its value.
 */
import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { closest } from './closest.js';
import { COMMANDS } from './commands.js';
import type { CommandName, CommandSpec } from './option-spec.js';
import { UsageError, type FileValue } from './option-values.js';

/** The option that names the file; the command line's own options never come from it. */
const CONFIG_OPTION = 'config';
const NOT_IN_FILE: ReadonlySet<string> = new Set([CONFIG_OPTION, 'help', 'version']);

/** `eddydb config` shows what start would run with, so it reads the `[start]` section. */
const SECTION_OF: Partial<Record<CommandName, CommandName>> = { config: 'start' };

/**
 * The config file's values for `spec`'s command, by option name, when the
 * command takes `--config` and the flag (else EDDYDB_CONFIG) names a file;
 * undefined otherwise. Throws UsageError for a file it cannot read or
 * parse, an unknown section or key, or a key given twice.
 */
export function configFileValues(
  spec: CommandSpec,
  flags: Readonly<Record<string, string | boolean | undefined>>,
  env: NodeJS.ProcessEnv,
): ReadonlyMap<string, FileValue> | undefined {
  const option = spec.options.find((o) => o.name === CONFIG_OPTION);
  if (!option) return undefined;
  const flag = flags[CONFIG_OPTION];
  const file = typeof flag === 'string' ? flag : option.env ? env[option.env] || undefined : undefined;
  if (file === undefined) return undefined;
  const source = typeof flag === 'string' ? `--${CONFIG_OPTION}` : option.env!;
  return readConfigFile(file, SECTION_OF[spec.name] ?? spec.name, source);
}

/** Reads `file` (named by `source`) for `command`. Throws UsageError as configFileValues says. */
export function readConfigFile(file: string, command: CommandName, source: string): Map<string, FileValue> {
  const text = readText(file, source);
  const doc = parseToml(text, file);
  const sections = sectionNames();
  const values = new Map<string, FileValue>();
  const take = (key: string, value: unknown, section?: string) => {
    const line = lineOf(text, section, key);
    values.set(key, { value, where: line === undefined ? file : `${file} line ${line}` });
  };
  for (const [key, value] of Object.entries(doc)) {
    if (sections.includes(key as CommandName)) {
      if (!isTable(value)) throw new UsageError(`'${key}' in ${file} must be a section, [${key}], of its options`);
      continue;
    }
    if (!topLevelKeys().includes(key)) throw unknownKey(key, file, lineOf(text, undefined, key), topLevelKeys());
    if (COMMANDS[command].options.some((o) => o.name === key)) take(key, value);
  }
  for (const section of sections) {
    const table = doc[section];
    if (!isTable(table)) continue;
    const known = optionNames(COMMANDS[section]);
    for (const [key, value] of Object.entries(table)) {
      if (!known.includes(key)) throw unknownKey(key, file, lineOf(text, section, key), known, section);
      if (section === command) take(key, value, section);
    }
  }
  return values;
}

function readText(file: string, source: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (err as Error).message;
    throw new UsageError(`cannot read the config file ${file} (${source}): ${why}`);
  }
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text, { integersAsBigInt: true, unsafeKeyBehaviour: 'throw' }) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    throw new UsageError(`${file} line ${err.line}, column ${err.column} is not valid TOML: ${reason}`);
  }
}

/** The commands a file may have a section for: those that take `--config`. */
function sectionNames(): CommandName[] {
  return Object.values(COMMANDS)
    .filter((c) => c.options.some((o) => o.name === CONFIG_OPTION) && SECTION_OF[c.name] === undefined)
    .map((c) => c.name);
}

function optionNames(spec: CommandSpec): string[] {
  return spec.options.filter((o) => !NOT_IN_FILE.has(o.name)).map((o) => o.name);
}

/** Keys allowed at the top level: every option of a command that has a section. */
function topLevelKeys(): string[] {
  return [...new Set(sectionNames().flatMap((c) => optionNames(COMMANDS[c])))];
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** `unknown key 'data_dir' in eddydb.toml line 2; did you mean 'data-dir'?` */
function unknownKey(
  key: string,
  file: string,
  line: number | undefined,
  known: readonly string[],
  section?: string,
): UsageError {
  const where = `${section ? `[${section}] ` : ''}in ${file}${line ? ` line ${line}` : ''}`;
  const near = closest(key, known) ?? (section ? undefined : closest(key, sectionNames()));
  const hint = near
    ? `did you mean '${near}'?`
    : `the keys are the options of ${section ? `'eddydb ${section} --help'` : "each command's --help"}`;
  return new UsageError(`unknown key '${key}' ${where}; ${hint}`);
}

/**
 * The 1-based line where `key` is set (`key =`, `"key" =`) in `section`
 * (undefined: the top level, before any header, or a `[key]` header), or
 * undefined when it is written another way (a dotted key, an inline table).
 */
function lineOf(text: string, section: string | undefined, key: string): number | undefined {
  const lines = text.split('\n');
  let current: string | undefined;
  const keyLine = new RegExp(`^\\s*(?:${escape(key)}|"${escape(key)}"|'${escape(key)}')\\s*=`);
  for (let i = 0; i < lines.length; i++) {
    const header = /^\s*\[\s*("?)([^\]"]+)\1\s*\]/.exec(lines[i]!);
    if (header) {
      current = header[2]!.trim();
      // A top-level key that is a table: its header.
      if (section === undefined && current === key) return i + 1;
    } else if (current === section && keyLine.test(lines[i]!)) return i + 1;
  }
  return undefined;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
