/**
 * Run-time settings: the ones `GET /api/config` shows and `PUT /api/config`
 * changes. Defaults come from the server config; changes are logged as a
 * `config` effect, so they survive restarts.
 */
import { InvalidInput } from '../errors.js';
import { DURABILITY_MODES, type DurabilityMode } from './storage/log-writer.js';
import { isPlainObject } from './values/index.js';

export const ISOLATION_LEVELS = ['ReadUncommitted', 'ReadCommitted', 'RepeatableRead', 'Serializable'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

export interface Settings {
  use_typed_values: boolean;
  default_isolation_level: IsolationLevel;
  durability: DurabilityMode;
  /** Max records per batch request. */
  max_batch_size: number;
  max_concurrent_batches: number;
  /** Requests per key per window; 0 = rate limiting off. */
  rate_limit_requests: number;
  rate_limit_window_secs: number;
  max_function_call_depth: number;
  /** Bounds of one stored-function call (nested calls included): steps executed, working records held, wall time. */
  function_max_steps: number;
  function_max_records: number;
  function_timeout_ms: number;
  /** Server environment variables stored functions may read as `{{env.NAME}}` (besides EDDYDB_FUNCTION_ENV's). Names only, never values. */
  function_env_allowlist: string[];
  client_tool_timeout_secs: number;
  token_ttl_secs: number;
  /** OpenAI-compatible provider (embeddings now, chat later): key and base URL. Never shown in clear. */
  openai_api_key: string | null;
  openai_api_url: string | null;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  use_typed_values: true,
  default_isolation_level: 'ReadUncommitted',
  durability: 'always',
  max_batch_size: 10_000,
  max_concurrent_batches: 64,
  rate_limit_requests: 0,
  rate_limit_window_secs: 60,
  max_function_call_depth: 16,
  function_max_steps: 100_000,
  function_max_records: 200_000,
  function_timeout_ms: 30_000,
  function_env_allowlist: [],
  client_tool_timeout_secs: 60,
  token_ttl_secs: 3600,
  openai_api_key: null,
  openai_api_url: null,
});

type Check = (v: unknown, key: string) => unknown;

/** An environment variable name `{{env.NAME}}` may read (the templates' rule). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_ENV_NAMES = 256;

const bool: Check = (v, k) => { if (typeof v !== 'boolean') throw new InvalidInput(`Config '${k}' must be a boolean`); return v; };
const int = (min: number, max: number): Check => (v, k) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidInput(`Config '${k}' must be an integer between ${min} and ${max}`);
  }
  return v;
};
const oneOf = (values: readonly string[]): Check => (v, k) => {
  if (typeof v !== 'string' || !values.includes(v)) throw new InvalidInput(`Config '${k}' must be one of ${values.join(', ')}`);
  return v;
};

const CHECKS: Record<keyof Settings, Check> = {
  use_typed_values: bool,
  default_isolation_level: (v, k) => {
    if (typeof v !== 'string' || !(ISOLATION_LEVELS as readonly string[]).includes(v)) throw new InvalidInput('Invalid isolation level');
    return oneOf(ISOLATION_LEVELS)(v, k);
  },
  durability: oneOf(DURABILITY_MODES),
  max_batch_size: int(1, 1_000_000),
  max_concurrent_batches: int(1, 10_000),
  rate_limit_requests: int(0, 1_000_000_000),
  rate_limit_window_secs: int(1, 86_400),
  max_function_call_depth: int(2, 256),
  function_max_steps: int(10, 10_000_000),
  function_max_records: int(10, 10_000_000),
  function_timeout_ms: int(10, 3_600_000),
  function_env_allowlist: (v, k) => {
    if (!Array.isArray(v) || v.length > MAX_ENV_NAMES || !v.every((n) => typeof n === 'string' && ENV_NAME.test(n))) {
      throw new InvalidInput(`Config '${k}' must be an array of at most ${MAX_ENV_NAMES} environment variable names (letters, digits and _, not starting with a digit)`);
    }
    return Object.freeze([...new Set(v as string[])]);
  },
  client_tool_timeout_secs: int(1, 3600),
  token_ttl_secs: int(60, 30 * 86_400),
  openai_api_key: (v, k) => {
    if (v !== null && (typeof v !== 'string' || v.length > 512)) throw new InvalidInput(`Config '${k}' must be a string (or null to remove it)`);
    return v === '' ? null : v;
  },
  openai_api_url: (v, k) => {
    if (v === null || v === '') return null;
    if (typeof v !== 'string' || !/^https?:\/\/[^\s]+$/.test(v) || v.length > 1024) throw new InvalidInput(`Config '${k}' must be an http(s) URL (or null to remove it)`);
    return v.replace(/\/+$/, '');
  },
};

/** Settings holding secrets: GET /api/config shows only whether they are set and their last four characters. */
export const SECRET_SETTINGS = ['openai_api_key'] as const;

export function maskSecret(v: string | null): string | null {
  if (!v) return null;
  return v.length <= 8 ? '****' : `****${v.slice(-4)}`;
}

/** Keys accepted by PUT /api/config that are handled outside Settings (provider keys, aliases). */
export const EXTRA_CONFIG_KEYS = ['durable_operations'] as const;

/**
 * Validates a PUT /api/config body into a partial Settings. Unknown keys and
 * wrong types are InvalidInput; nothing is applied when anything is wrong.
 */
export function parseSettingsPatch(body: unknown): Partial<Settings> {
  if (!isPlainObject(body)) throw new InvalidInput('Config body must be a JSON object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'durable_operations') {
      out.durability = bool(value, key) ? 'always' : 'none';
      continue;
    }
    const check = Object.hasOwn(CHECKS, key) ? CHECKS[key as keyof Settings] : undefined;
    if (!check) {
      throw new InvalidInput(`Unknown config key '${key}'; known keys: ${[...Object.keys(CHECKS), ...EXTRA_CONFIG_KEYS].join(', ')}`);
    }
    out[key] = check(value, key);
  }
  return out as Partial<Settings>;
}

export function mergeSettings(base: Readonly<Settings>, stored: Readonly<Record<string, unknown>>): Settings {
  const out = { ...base } as Record<string, unknown>;
  for (const key of Object.keys(CHECKS)) if (key in stored) out[key] = stored[key];
  return out as unknown as Settings;
}
