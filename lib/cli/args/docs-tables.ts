/**
 * The configuration table (docs/configuration.md) and the offline-tools
 * tables (docs/operations.md), as Markdown rows rendered from the command
 * tables. spec/cli/docs-sync.spec.ts checks that every row appears there
 * verbatim, so a changed option fails until the docs say the same (the
 * failure prints the row).
 */
import { COMMANDS } from './commands.js';
import type { CommandName, OptionSpec } from './option-spec.js';

/** Options that act on the command line itself rather than configure anything. */
const META = new Set(['help', 'version']);
const TOOLS: readonly CommandName[] = ['snapshot', 'compact', 'verify', 'export', 'import', 'backup', 'restore'];

/** In a table cell a `|`, even inside a code span, must be escaped. */
const cell = (s: string): string => s.replaceAll('|', '\\|');
const row = (cells: readonly string[]): string => `|${cells.map((c) => (c ? ` ${cell(c)} ` : ' ')).join('|')}|`;

function envCell(o: OptionSpec): string {
  if (!o.env) return '';
  return o.value.kind === 'switch' ? `\`${o.env}=1\`` : `\`${o.env}\``;
}

/** `| flag | environment | default | meaning |` rows of the start command, in table order. */
export function configurationRows(): string[] {
  return COMMANDS.start.options
    .filter((o) => !META.has(o.name))
    .map((o) => row([o.isFlag ? `\`--${o.name}\`` : '', envCell(o), o.defaultText ?? '', o.help]));
}

/** `| command | what it does |` rows, one per offline tool. */
export function toolCommandRows(): string[] {
  return TOOLS.map((name) => row([`\`eddydb ${name}\``, COMMANDS[name].summary]));
}

/**
 * `| option | commands | environment | default | meaning |` rows: each tool option once, with the tools that take it
 * (an option that means something else to another tool, `--out`, has a row of its own).
 */
export function toolOptionRows(): string[] {
  const seen = new Map<string, { option: OptionSpec; commands: CommandName[] }>();
  for (const name of TOOLS) {
    for (const o of COMMANDS[name].options) {
      if (META.has(o.name)) continue;
      const key = `${o.name}\n${o.help}`;
      const entry = seen.get(key) ?? { option: o, commands: [] };
      entry.commands.push(name);
      seen.set(key, entry);
    }
  }
  return [...seen.values()].map(({ option: o, commands }) => {
    const label = `\`--${o.name}${o.placeholder ? ` ${o.placeholder}` : ''}\``;
    const which = commands.length === TOOLS.length ? 'all' : commands.join(', ');
    return row([label, which, envCell(o), o.isRequired ? 'required' : (o.defaultText ?? ''), o.help]);
  });
}
