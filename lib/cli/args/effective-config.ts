/**
 * What `eddydb config` prints: every option of a command with the value it
 * would run with and where that value comes from (a flag, an environment
 * variable, the config file and line, or the default), as TOML a config
 * file could hold. A secret's value (OptionSpec.isSecret, and the API keys
 * of ripple peers) is shown as `(redacted)`. A default the docs describe in
 * words (`generated`, `none`) is a comment line.
 */
import type { OptionSpec } from './option-spec.js';
import type { OptionSource, OptionValue, OptionValues } from './option-values.js';

export const REDACTED = '(redacted)';
/** Options about the command line itself, not configuration. */
const META: ReadonlySet<string> = new Set(['help', 'version']);
/** Shown, but as a comment: a config file cannot name another one. */
const CONFIG_OPTION = 'config';

/** The lines for `options`, in table order, after a header naming `command`. */
export function effectiveConfig(command: string, options: readonly OptionSpec[], values: OptionValues): string {
  const rows = options
    .filter((o) => !META.has(o.name))
    .map((o) => {
      const source = values.sourceOf(o.name);
      const value = values.get(o.name);
      return { setting: setting(o, value), source: sourceText(source) };
    });
  const width = Math.max(...rows.map((r) => r.setting.length)) + 2;
  return [
    `# The configuration 'eddydb ${command}' would run with, and where each value comes from`,
    '# (flag > environment > config file > default); secrets are shown as "(redacted)".',
    ...rows.map((r) => `${r.setting.padEnd(width)}# ${r.source}`),
  ].join('\n');
}

/** `key = literal`, or `# key: words` for a default the docs give in words. */
function setting(o: OptionSpec, value: OptionValue | undefined): string {
  if (value !== undefined) return `${o.name === CONFIG_OPTION ? '# ' : ''}${o.name} = ${literal(o, value)}`;
  const fallback = defaultValue(o);
  if (fallback !== undefined) return `${o.name} = ${literal(o, fallback)}`;
  return `# ${o.name}: ${(o.defaultText ?? 'none').replaceAll('`', '')}`;
}

function literal(o: OptionSpec, value: OptionValue): string {
  if (Array.isArray(value)) return `[${value.map((p) => JSON.stringify(`${p.url}|${REDACTED}`)).join(', ')}]`;
  if (o.isSecret) return JSON.stringify(REDACTED);
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * The default as a value, when the docs' text is one: a leading code span
 * (`` `8080` ``, `` `0` (off) ``) read as the option's kind, or off/on for a
 * switch; undefined for words (`generated`, `none`, `on under npm`).
 */
function defaultValue(o: OptionSpec): OptionValue | undefined {
  const text = o.defaultText;
  if (text === undefined) return o.value.kind === 'switch' ? false : undefined;
  if (o.value.kind === 'switch') return text === 'off' ? false : text === 'on' ? true : undefined;
  const code = /^`([^`]*)`/.exec(text)?.[1];
  if (code === undefined) return undefined;
  if (o.value.kind !== 'int') return code;
  return /^\d+$/.test(code) ? Number(code) : undefined;
}

function sourceText(source: OptionSource): string {
  switch (source.kind) {
    case 'flag':
      return `flag ${source.where}`;
    case 'env':
      return `env ${source.where}`;
    case 'file':
      return `file ${source.where}`;
    case 'default':
      return 'default';
    default: {
      const never: never = source;
      throw new TypeError(`unknown source ${String(never)}`);
    }
  }
}
