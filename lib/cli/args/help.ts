/**
 * Help text, rendered from the command tables: `eddydb --help` lists the
 * commands, `eddydb <command> --help` (or `eddydb help <command>`) shows a
 * command's usage, description and options with their environment
 * variables and defaults. The tables' Markdown backticks are dropped here.
 */
import { COMMANDS } from './commands.js';
import { COMMAND_NAMES, flagLabel, type CommandSpec, type OptionSpec } from './option-spec.js';

const plain = (s: string): string => s.replaceAll('`', '');

/** The overview: usage, every command with its summary, where to look next. */
export function generalHelp(): string {
  const width = Math.max(...COMMAND_NAMES.map((n) => n.length)) + 2;
  return [
    'eddydb: an in-memory document database server, wire-compatible with ekoDB clients',
    '',
    'usage: eddydb [command] [options]',
    '',
    'commands:',
    ...COMMAND_NAMES.map((n) => `  ${n.padEnd(width)}${plain(COMMANDS[n].summary)}`),
    '',
    "Run 'eddydb <command> --help' (or 'eddydb help <command>') for a command's options.",
    "With no command, eddydb starts the server: 'eddydb --port 9000' is 'eddydb start --port 9000'.",
  ].join('\n');
}

/** One command's help: usage, description, options (flags, then environment-only settings). */
export function commandHelp(spec: CommandSpec): string {
  const flags = spec.options.filter((o) => o.isFlag);
  const envOnly = spec.options.filter((o) => !o.isFlag);
  const width = Math.min(30, Math.max(...spec.options.map((o) => flagLabel(o).length)) + 2);
  const lines = [
    `usage: eddydb ${spec.usage}`,
    '',
    plain(spec.description),
    '',
    'options:',
    ...flags.map((o) => optionLine(o, width)),
  ];
  if (envOnly.length > 0) lines.push('', 'environment only:', ...envOnly.map((o) => optionLine(o, width)));
  return lines.join('\n');
}

/** Help lines stay within this many columns (a label column plus wrapped text). */
const LINE_WIDTH = 100;

function optionLine(o: OptionSpec, width: number): string {
  const label = flagLabel(o);
  const notes = [
    o.isRequired ? 'required' : undefined,
    o.isFlag && o.env ? `env ${o.env}${o.value.kind === 'switch' ? '=1' : ''}` : undefined,
    o.defaultText ? `default ${plain(o.defaultText)}` : undefined,
  ].filter(Boolean);
  const indent = ' '.repeat(width + 2);
  const text = wrap(`${plain(o.help)}${notes.length ? ` (${notes.join('; ')})` : ''}`, LINE_WIDTH - indent.length).join(
    `\n${indent}`,
  );
  return label.length + 2 > width ? `  ${label}\n${indent}${text}` : `  ${label.padEnd(width)}${text}`;
}

/** Words of `text` in lines of at most `width` columns (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
