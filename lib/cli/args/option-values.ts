/**
 * The values of one command's options, each taken from its flag, else its
 * environment variable, else the config file (config-file.ts), and checked
 * against its kind when read in: a bad value, from any of them, is a
 * UsageError naming where it came from (the flag, the variable, or the key
 * with its file and line), so the command never starts half-configured.
 * Absent options stay undefined; defaults belong to the code that uses them.
 * Each value remembers its source, for `eddydb config`.
 */
import { CronSchedule } from '../../engine/index.js';
import type { OptionSpec, ValueKind } from './option-spec.js';
import { closest } from './closest.js';

/** A mistake on the command line: one line for the user, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Peer {
  url: string;
  key: string;
}
export type OptionValue = string | number | boolean | Peer[];

/** A value as a config file gives it (a TOML value: integers as bigint), with where it stands there. */
export interface FileValue {
  readonly value: unknown;
  /** `eddydb.toml line 3`: names the file and, when found, the line of the key. */
  readonly where: string;
}

/** Where an option's value came from: `where` is the flag, the variable, or the file and line. */
export type OptionSource =
  | { readonly kind: 'flag' | 'env' | 'file'; readonly where: string }
  | { readonly kind: 'default'; readonly where?: undefined };

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);

export class OptionValues {
  private readonly values = new Map<string, OptionValue>();
  private readonly sources = new Map<string, OptionSource>();

  /**
   * Reads every option of `specs` from `flags` (util.parseArgs values), or
   * `env`, or `file` (keyed by option name). Throws UsageError for the first
   * bad value. An empty environment variable counts as unset, except for a
   * cron schedule, where it disables.
   */
  constructor(
    specs: readonly OptionSpec[],
    flags: Readonly<Record<string, string | boolean | undefined>>,
    env: NodeJS.ProcessEnv,
    file?: ReadonlyMap<string, FileValue>,
  ) {
    for (const spec of specs) {
      const flag = spec.isFlag ? flags[spec.name] : undefined;
      if (flag !== undefined) {
        const where = `--${spec.name}`;
        const value = typeof flag === 'boolean' ? flag : convert(spec.value, flag, where);
        this.set(spec.name, value, { kind: 'flag', where });
        continue;
      }
      const raw = spec.env ? env[spec.env] : undefined;
      if (raw !== undefined && (raw !== '' || spec.value.kind === 'cron')) {
        this.set(spec.name, convert(spec.value, raw, spec.env!), { kind: 'env', where: spec.env! });
        continue;
      }
      const given = file?.get(spec.name);
      if (given === undefined) continue;
      const value = fromToml(spec, given.value, `'${spec.name}' in ${given.where}`);
      this.set(spec.name, value, { kind: 'file', where: given.where });
    }
  }

  private set(name: string, value: OptionValue, source: OptionSource): void {
    this.values.set(name, value);
    this.sources.set(name, source);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }
  /** The value as read in, whatever its kind (undefined: the default). */
  get(name: string): OptionValue | undefined {
    return this.values.get(name);
  }
  /** Where the value came from; `default` for an option nothing gave. */
  sourceOf(name: string): OptionSource {
    return this.sources.get(name) ?? { kind: 'default' };
  }
  text(name: string): string | undefined {
    return this.typed(name, 'string');
  }
  int(name: string): number | undefined {
    return this.typed(name, 'number');
  }
  /** A switch: undefined when neither the flag nor its variable was given. */
  isOn(name: string): boolean | undefined {
    return this.typed(name, 'boolean');
  }
  peers(name: string): Peer[] | undefined {
    return this.values.get(name) as Peer[] | undefined;
  }

  private typed<T>(name: string, type: 'string' | 'number' | 'boolean'): T | undefined {
    const v = this.values.get(name);
    if (v !== undefined && typeof v !== type) throw new TypeError(`option '${name}' is not a ${type}`);
    return v as T | undefined;
  }
}

/**
 * A config file's TOML value as the option's kind demands: a switch takes a
 * boolean, a number an integer, the others a string (ripple peers also an
 * array of `url|api_key` strings); then the same checks as a flag's text.
 * `source` names the key, file and line in the error; a secret's value is
 * never echoed.
 */
function fromToml(spec: OptionSpec, value: unknown, source: string): OptionValue {
  const kind = spec.value;
  const bad = (want: string) =>
    new UsageError(`invalid value for ${source}: ${describeToml(value, spec.isSecret === true)} (${want})`);
  switch (kind.kind) {
    case 'switch':
      if (typeof value === 'boolean') return value;
      throw bad('true or false');
    case 'int':
      if (typeof value === 'bigint' && value >= BigInt(kind.min) && value <= BigInt(kind.max)) return Number(value);
      throw bad(`a whole number from ${kind.min} to ${kind.max}, without quotes`);
    case 'peers':
      if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
        return convert(kind, value.join(','), source);
      if (typeof value === 'string') return convert(kind, value, source);
      throw bad(`a string 'url|api_key,...' or an array of 'url|api_key' strings`);
    default:
      if (typeof value === 'string') return convert(kind, value, source);
      throw bad(kind.kind === 'choice' ? `one of ${kind.values.join(', ')}, in quotes` : 'a string, in quotes');
  }
}

/** A TOML value as an error shows it: its type, and its text unless it is a secret's. */
function describeToml(value: unknown, isSecret: boolean): string {
  const type = tomlType(value);
  if (isSecret || !SCALARS.has(type)) return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
  return `the ${type} ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
}

/** TOML's name for the type of a value as smol-toml returns it (integers as bigint). */
const SCALAR_TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  bigint: 'integer',
  number: 'float',
  boolean: 'boolean',
};
const SCALARS: ReadonlySet<string> = new Set(Object.values(SCALAR_TYPES));

function tomlType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  return SCALAR_TYPES[typeof value] ?? 'table';
}

/** `raw` as the kind demands; `source` names the flag or variable in the error. */
function convert(kind: ValueKind, raw: string, source: string): OptionValue {
  const bad = (want: string) => new UsageError(`invalid value for ${source}: '${raw}' (${want})`);
  switch (kind.kind) {
    case 'switch':
      if (ON.has(raw.toLowerCase())) return true;
      if (OFF.has(raw.toLowerCase())) return false;
      throw bad('1 or 0');
    case 'text':
      return raw;
    case 'int': {
      const n = /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < kind.min || n > kind.max)
        throw bad(`a whole number from ${kind.min} to ${kind.max}`);
      return n;
    }
    case 'choice': {
      if (kind.values.includes(raw)) return raw;
      const near = closest(raw, kind.values);
      throw bad(`one of ${kind.values.join(', ')}${near ? `; did you mean '${near}'?` : ''}`);
    }
    case 'cron':
      if (raw === '') return raw;
      try {
        CronSchedule.parse(raw);
      } catch (err) {
        throw bad(`a cron schedule such as '0 * * * *', or empty to disable: ${(err as Error).message}`);
      }
      return raw;
    case 'peers':
      try {
        return parsePeers(raw);
      } catch (err) {
        // Not `bad`: the raw value holds API keys.
        throw new UsageError(`invalid value for ${source}: ${(err as Error).message}`);
      }
    default: {
      const never: never = kind;
      throw new TypeError(`unknown value kind ${String(never)}`);
    }
  }
}

/** `url|key,url|key` -> peers. Throws Error naming the bad entry by position and url, never by key. */
export function parsePeers(spec: string): Peer[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const bar = entry.indexOf('|');
      if (bar < 0) throw new Error(`ripple peer ${i + 1} must be written url|api_key`);
      const url = entry.slice(0, bar).replace(/\/+$/, '');
      if (!/^https?:\/\//.test(url)) throw new Error(`ripple peer url '${url}' must start with http:// or https://`);
      return { url, key: entry.slice(bar + 1) };
    });
}
