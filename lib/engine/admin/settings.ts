/**
 * Run-time settings: the ones `GET /api/config` shows and `PUT /api/config`
 * changes. Defaults come from the server config; changes are logged as a
 * `config` effect, so they survive restarts.
 */
import { isIP } from 'node:net';
import { InvalidInput } from '../../errors.js';
import { DURABILITY_MODES, type DurabilityMode } from '../storage/log/log-writer.js';
import { isPlainObject } from '../values/index.js';

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
  /** Highest bcrypt cost BcryptHash may use and BcryptVerify accepts in a hash (each step doubles the work). */
  function_bcrypt_max_cost: number;
  /**
   * Server environment variables stored functions may read as `{{env.NAME}}` (besides EDDYDB_FUNCTION_ENV's). Names
   * only, never values.
   */
  function_env_allowlist: string[];
  client_tool_timeout_secs: number;
  token_ttl_secs: number;
  /**
   * LLM providers (lib/chat/providers): a key and a base URL each (null: the
   * vendor's own URL). `openai_*` also serves embeddings. Keys are never shown
   * in clear (SECRET_SETTINGS).
   */
  openai_api_key: string | null;
  openai_api_url: string | null;
  anthropic_api_key: string | null;
  anthropic_api_url: string | null;
  perplexity_api_key: string | null;
  perplexity_api_url: string | null;
  /** An OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio): its root URL and an optional key. */
  openai_compatible_api_key: string | null;
  openai_compatible_url: string | null;
  /** How long a provider may take to answer (headers, and each gap between streamed chunks). */
  provider_timeout_ms: number;
  /**
   * Outbound requests of function steps (HttpRequest, SWR, EmailSend's HTTP
   * providers): destinations opened although private, loopback or
   * link-local (host names, `*.suffix`, IP addresses, CIDR ranges), or all
   * of them. Public destinations need no entry.
   */
  outbound_allow_hosts: readonly string[];
  outbound_allow_private: boolean;
  /** EmailSend's SMTP server (the default provider). `smtp_password` is never shown in clear. */
  smtp_host: string | null;
  smtp_port: number;
  /** Implicit TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  smtp_secure: boolean;
  smtp_user: string | null;
  smtp_password: string | null;
  /** EmailSend's `sendgrid` provider base URL (tests point it at a local server). */
  sendgrid_api_url: string;
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
  function_bcrypt_max_cost: 14,
  function_env_allowlist: [],
  client_tool_timeout_secs: 60,
  token_ttl_secs: 3600,
  openai_api_key: null,
  openai_api_url: null,
  anthropic_api_key: null,
  anthropic_api_url: null,
  perplexity_api_key: null,
  perplexity_api_url: null,
  openai_compatible_api_key: null,
  openai_compatible_url: null,
  provider_timeout_ms: 60_000,
  outbound_allow_hosts: [],
  outbound_allow_private: false,
  smtp_host: null,
  smtp_port: 587,
  smtp_secure: false,
  smtp_user: null,
  smtp_password: null,
  sendgrid_api_url: 'https://api.sendgrid.com',
});

type Check = (value: unknown, key: string) => unknown;

/** An environment variable name `{{env.NAME}}` may read (the templates' rule). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_ENV_NAMES = 256;

const bool: Check = (v, k) => {
  if (typeof v !== 'boolean') throw new InvalidInput(`Config '${k}' must be a boolean`);
  return v;
};
const int =
  (min: number, max: number): Check =>
  (value, key) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new InvalidInput(`Config '${key}' must be an integer between ${min} and ${max}`);
    }
    return value;
  };
const oneOf =
  (values: readonly string[]): Check =>
  (value, key) => {
    if (typeof value !== 'string' || !values.includes(value))
      throw new InvalidInput(`Config '${key}' must be one of ${values.join(', ')}`);
    return value;
  };

/** A provider key: a string, or null/'' to remove it. */
const secret: Check = (value, key) => {
  if (value !== null && (typeof value !== 'string' || value.length > 512))
    throw new InvalidInput(`Config '${key}' must be a string (or null to remove it)`);
  return value === '' ? null : value;
};
/** A provider base URL: http(s), trailing slashes dropped; null/'' removes it. */
const url: Check = (value, key) => {
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || !/^https?:\/\/[^\s]+$/.test(value) || value.length > 1024)
    throw new InvalidInput(`Config '${key}' must be an http(s) URL (or null to remove it)`);
  return value.replace(/\/+$/, '');
};

const optionalText =
  (max: number): Check =>
  (value, key) => {
    if (value === null || value === '') return null;
    if (typeof value !== 'string' || value.length > max)
      throw new InvalidInput(`Config '${key}' must be a string of at most ${max} characters (or null to remove it)`);
    return value;
  };
const httpUrl: Check = (value, key) => {
  if (typeof value !== 'string' || !/^https?:\/\/[^\s]+$/.test(value) || value.length > 1024)
    throw new InvalidInput(`Config '${key}' must be an http(s) URL`);
  return value.replace(/\/+$/, '');
};

const HOST_NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/i;
export const MAX_OUTBOUND_ALLOW_HOSTS = 256;

/** An `outbound_allow_hosts` entry: a host name, `*.suffix`, an IP address, or a CIDR range. */
export function isOutboundHostEntry(entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address);
  if (family !== 0) {
    if (slash < 0) return true;
    const prefix = entry.slice(slash + 1);
    return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  }
  return slash < 0 && entry.length <= 253 && HOST_NAME.test(entry);
}

const hostList: Check = (value, key) => {
  if (!Array.isArray(value) || value.length > MAX_OUTBOUND_ALLOW_HOSTS)
    throw new InvalidInput(
      `Config '${key}' must be an array of at most ${MAX_OUTBOUND_ALLOW_HOSTS} host names, IP addresses or CIDR ranges`,
    );
  return value.map((entry) => {
    if (typeof entry !== 'string' || !isOutboundHostEntry(entry.trim()))
      throw new InvalidInput(
        `Config '${key}': '${String(entry).slice(0, 64)}' is not a host name, *.suffix, IP address or CIDR range`,
      );
    return entry.trim();
  });
};

const CHECKS: Record<keyof Settings, Check> = {
  use_typed_values: bool,
  default_isolation_level: (value, key) => {
    if (typeof value !== 'string' || !(ISOLATION_LEVELS as readonly string[]).includes(value))
      throw new InvalidInput('Invalid isolation level');
    return oneOf(ISOLATION_LEVELS)(value, key);
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
  function_bcrypt_max_cost: int(4, 31),
  function_env_allowlist: (value, key) => {
    if (
      !Array.isArray(value) ||
      value.length > MAX_ENV_NAMES ||
      !value.every((n) => typeof n === 'string' && ENV_NAME.test(n))
    ) {
      throw new InvalidInput(
        `Config '${key}' must be an array of at most ${MAX_ENV_NAMES} environment variable names (letters, digits ` +
          `and _, not starting with a digit)`,
      );
    }
    return Object.freeze([...new Set(value as string[])]);
  },
  client_tool_timeout_secs: int(1, 3600),
  token_ttl_secs: int(60, 30 * 86_400),
  openai_api_key: secret,
  openai_api_url: url,
  anthropic_api_key: secret,
  anthropic_api_url: url,
  perplexity_api_key: secret,
  perplexity_api_url: url,
  openai_compatible_api_key: secret,
  openai_compatible_url: url,
  provider_timeout_ms: int(100, 600_000),
  outbound_allow_hosts: hostList,
  outbound_allow_private: bool,
  smtp_host: optionalText(253),
  smtp_port: int(1, 65_535),
  smtp_secure: bool,
  smtp_user: optionalText(512),
  smtp_password: optionalText(512),
  sendgrid_api_url: httpUrl,
};

/** Settings holding secrets: GET /api/config shows only whether they are set and their last four characters. */
export const SECRET_SETTINGS = [
  'openai_api_key',
  'anthropic_api_key',
  'perplexity_api_key',
  'openai_compatible_api_key',
  'smtp_password',
] as const;

export function maskSecret(value: string | null): string | null {
  if (!value) return null;
  return value.length <= 8 ? '****' : `****${value.slice(-4)}`;
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
      throw new InvalidInput(
        `Unknown config key '${key}'; known keys: ${[...Object.keys(CHECKS), ...EXTRA_CONFIG_KEYS].join(', ')}`,
      );
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
