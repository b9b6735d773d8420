/**
 * The server's configuration from the start command's option values (flags
 * win over the environment; the environment wins over the defaults here and
 * in the server). Values arrive checked (args/option-values.ts); this only
 * maps option names onto ServerConfig and Settings.
 */
import path from 'node:path';
import type { ServerConfig } from '../http/index.js';
import { parseEnvNameList } from '../functions/index.js';
import type { DurabilityMode, Settings } from '../engine/index.js';
import type { OptionValues } from './args/option-values.js';
import { parseCommandLine } from './args/parse-command-line.js';

/** The ServerConfig `eddydb <argv>` would start with. Throws UsageError for a bad command line. */
export function startConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const line = parseCommandLine(argv, env);
  if (line.command !== 'start') throw new TypeError(`not a start command line: ${argv.join(' ')}`);
  return serverConfig(line.values);
}

/** Maps the start command's options onto a ServerConfig. Pure. */
export function serverConfig(v: OptionValues): ServerConfig {
  const settings: Partial<Settings> = {};
  const durability = v.text('durability');
  if (durability !== undefined) settings.durability = durability as DurabilityMode;
  const rate = v.int('rate-limit');
  if (rate !== undefined) settings.rate_limit_requests = rate;
  const rateWindow = v.int('rate-limit-window');
  if (rateWindow !== undefined) settings.rate_limit_window_secs = rateWindow;
  const tokenTtl = v.int('token-ttl');
  if (tokenTtl !== undefined) settings.token_ttl_secs = tokenTtl;
  const openaiKey = v.text('openai-api-key');
  if (openaiKey) settings.openai_api_key = openaiKey;
  const openaiUrl = v.text('openai-base-url');
  if (openaiUrl) settings.openai_api_url = openaiUrl.replace(/\/+$/, '');
  const maxBatch = v.int('max-batch-size');
  if (maxBatch !== undefined) settings.max_batch_size = maxBatch;
  return {
    ripplePeers: v.peers('ripple-peers') ?? [],
    port: v.int('port') ?? 8080,
    host: v.text('host') ?? '0.0.0.0',
    dataDir: dataDirOf(v),
    adminKey: v.text('admin-key'),
    settings,
    bodyLimitBytes: v.int('body-limit'),
    snapshotBytes: v.int('snapshot-bytes'),
    snapshotCron: v.text('snapshot-cron'),
    healRetryMs: v.int('heal-retry-ms'),
    healRetryMaxMs: v.int('heal-retry-max-ms'),
    quiet: v.isOn('quiet') ?? false,
    logLevel: v.text('log-level') as ServerConfig['logLevel'],
    accessLog: v.isOn('access-log') ?? false,
    logFormat: v.text('log-format') as ServerConfig['logFormat'],
    salvage: v.isOn('salvage') ?? false,
    authFailureLimit: v.int('auth-failure-limit'),
    authFailureWindowSecs: v.int('auth-failure-window'),
    trustProxy: v.isOn('trust-proxy') ?? false,
    functionEnv: parseEnvNameList(v.text('function-env')),
  };
}

/** The absolute data directory (`--data-dir`, EDDYDB_DATA_DIR, or ./data). */
export function dataDirOf(v: OptionValues): string {
  return path.resolve(v.text('data-dir') ?? 'data');
}
