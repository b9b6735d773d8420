/**
 * The values of one command's options, each taken from its flag or else its
 * environment variable, and checked against its kind when read in: a bad
 * value, from either place, is a UsageError naming where it came from, so
 * the command never starts half-configured. Absent options stay undefined;
 * defaults belong to the code that uses them.
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
type Value = string | number | boolean | Peer[];

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);

export class OptionValues {
  private readonly values = new Map<string, Value>();

  /**
   * Reads every option of `specs` from `flags` (util.parseArgs values) or
   * `env`. Throws UsageError for the first bad value. An empty environment
   * variable counts as unset, except for a cron schedule, where it disables.
   */
  constructor(
    specs: readonly OptionSpec[],
    flags: Readonly<Record<string, string | boolean | undefined>>,
    env: NodeJS.ProcessEnv,
  ) {
    for (const spec of specs) {
      const flag = spec.isFlag ? flags[spec.name] : undefined;
      if (flag !== undefined) {
        this.values.set(spec.name, typeof flag === 'boolean' ? flag : convert(spec.value, flag, `--${spec.name}`));
        continue;
      }
      const raw = spec.env ? env[spec.env] : undefined;
      if (raw === undefined || (raw === '' && spec.value.kind !== 'cron')) continue;
      this.values.set(spec.name, convert(spec.value, raw, spec.env!));
    }
  }

  has(name: string): boolean {
    return this.values.has(name);
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

/** `raw` as the kind demands; `source` names the flag or variable in the error. */
function convert(kind: ValueKind, raw: string, source: string): Value {
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
