/**
 * Server configuration from command-line flags and environment variables.
 * Flags win over the environment; the environment wins over defaults.
 * Every option is listed in the README.
 */
import path from 'node:path';
import type { ServerConfig } from '../http/index.js';
import { DURABILITY_MODES, type DurabilityMode, type Settings } from '../engine/index.js';

export interface ParsedArgs { command: string; flags: Record<string, string | true>; positional: string[] }

export function parseArgs(argv: string[]): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[a.slice(2)] = argv[++i]!;
      else flags[a.slice(2)] = true;
    } else positional.push(a);
  }
  return { command: positional.shift() ?? 'start', flags, positional };
}

function num(v: string | true | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || !Number.isFinite(n)) throw new Error(`${name} must be a number`);
  return n;
}

export function serverConfig(args: ParsedArgs, env: NodeJS.ProcessEnv): ServerConfig {
  const flag = (name: string) => (typeof args.flags[name] === 'string' ? (args.flags[name] as string) : undefined);
  const settings: Partial<Settings> = {};
  const durability = flag('durability') ?? env.EDDYDB_DURABILITY;
  if (durability !== undefined) {
    if (!(DURABILITY_MODES as readonly string[]).includes(durability)) throw new Error(`durability must be one of ${DURABILITY_MODES.join(', ')}`);
    settings.durability = durability as DurabilityMode;
  }
  const rate = num(flag('rate-limit') ?? env.EDDYDB_RATE_LIMIT, 'rate limit');
  if (rate !== undefined) settings.rate_limit_requests = rate;
  const rateWindow = num(flag('rate-limit-window') ?? env.EDDYDB_RATE_LIMIT_WINDOW, 'rate limit window');
  if (rateWindow !== undefined) settings.rate_limit_window_secs = rateWindow;
  const tokenTtl = num(flag('token-ttl') ?? env.EDDYDB_TOKEN_TTL, 'token ttl');
  if (tokenTtl !== undefined) settings.token_ttl_secs = tokenTtl;
  if (env.OPENAI_API_KEY) settings.openai_api_key = env.OPENAI_API_KEY;
  if (env.OPENAI_BASE_URL) settings.openai_api_url = env.OPENAI_BASE_URL.replace(/\/+$/, '');
  const maxBatch = num(flag('max-batch-size') ?? env.EDDYDB_MAX_BATCH_SIZE, 'max batch size');
  if (maxBatch !== undefined) settings.max_batch_size = maxBatch;
  return {
    ripplePeers: parsePeers(flag('ripple-peers') ?? env.EDDYDB_RIPPLE_PEERS),
    port: num(flag('port') ?? env.PORT, 'port') ?? 8080,
    host: flag('host') ?? env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(flag('data-dir') ?? env.EDDYDB_DATA_DIR ?? 'data'),
    adminKey: env.EDDYDB_ADMIN_KEY || undefined,
    settings,
    bodyLimitBytes: num(flag('body-limit') ?? env.EDDYDB_BODY_LIMIT, 'body limit'),
    snapshotBytes: num(flag('snapshot-bytes') ?? env.EDDYDB_SNAPSHOT_BYTES, 'snapshot bytes'),
    snapshotCron: flag('snapshot-cron') ?? env.EDDYDB_SNAPSHOT_CRON,
    healRetryMs: num(flag('heal-retry-ms') ?? env.EDDYDB_HEAL_RETRY_MS, 'heal retry ms'),
    healRetryMaxMs: num(flag('heal-retry-max-ms') ?? env.EDDYDB_HEAL_RETRY_MAX_MS, 'heal retry max ms'),
    quiet: args.flags.quiet === true || env.EDDYDB_QUIET === '1',
    salvage: isOn(args.flags.salvage) || env.EDDYDB_SALVAGE === '1',
    authFailureLimit: num(flag('auth-failure-limit') ?? env.EDDYDB_AUTH_FAILURE_LIMIT, 'auth failure limit'),
    authFailureWindowSecs: num(flag('auth-failure-window') ?? env.EDDYDB_AUTH_FAILURE_WINDOW, 'auth failure window'),
    trustProxy: args.flags['trust-proxy'] === true || env.EDDYDB_TRUST_PROXY === '1',
  };
}

/** A boolean flag: `--salvage`, `--salvage=true` or `--salvage=1`. */
function isOn(v: string | true | undefined): boolean {
  return v === true || v === 'true' || v === '1';
}

/** `url|key,url|key` -> peers. */
export function parsePeers(spec: string | undefined): Array<{ url: string; key: string }> {
  if (!spec) return [];
  return spec.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const bar = entry.indexOf('|');
    if (bar < 0) throw new Error(`ripple peer '${entry}' must be written url|api_key`);
    const url = entry.slice(0, bar).replace(/\/+$/, '');
    if (!/^https?:\/\//.test(url)) throw new Error(`ripple peer url '${url}' must start with http:// or https://`);
    return { url, key: entry.slice(bar + 1) };
  });
}
