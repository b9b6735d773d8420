/**
 * The server's configuration from the start command's option values (flags
 * win over the environment, the environment over the config file, the file
 * over the defaults here and in the server). Values arrive checked
 * (args/option-values.ts); this only maps option names onto ServerConfig and
 * Settings. The TLS files are read by start.ts (tls-files.ts), keeping this
 * pure.
 */
import path from 'node:path';
import type { ServerConfig, ServerStorage } from '../http/index.js';
import { parseEnvNameList } from '../functions/index.js';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_STREAM_BOUNDS } from '../cluster/index.js';
import { isOutboundHostEntry, type DurabilityMode, type Settings } from '../engine/index.js';
import { UsageError, type OptionValues } from './args/option-values.js';
import { parseCommandLine } from './args/parse-command-line.js';
import { weakAdminKeyReason } from './admin-key-strength.js';

/** Provider keys and base URLs: option -> setting (PUT /api/config changes the same settings later). */
const PROVIDER_OPTIONS: ReadonlyArray<
  readonly [
    string,
    (
      | 'openai_api_key'
      | 'openai_api_url'
      | 'anthropic_api_key'
      | 'anthropic_api_url'
      | 'perplexity_api_key'
      | 'perplexity_api_url'
      | 'openai_compatible_url'
      | 'openai_compatible_api_key'
    ),
  ]
> = [
  ['openai-api-key', 'openai_api_key'],
  ['openai-base-url', 'openai_api_url'],
  ['anthropic-api-key', 'anthropic_api_key'],
  ['anthropic-base-url', 'anthropic_api_url'],
  ['perplexity-api-key', 'perplexity_api_key'],
  ['perplexity-base-url', 'perplexity_api_url'],
  ['openai-compatible-url', 'openai_compatible_url'],
  ['openai-compatible-api-key', 'openai_compatible_api_key'],
];

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
  for (const [option, setting] of PROVIDER_OPTIONS) {
    const value = v.text(option);
    if (value) settings[setting] = setting.endsWith('_key') ? value : value.replace(/\/+$/, '');
  }
  const maxBatch = v.int('max-batch-size');
  if (maxBatch !== undefined) settings.max_batch_size = maxBatch;
  Object.assign(settings, outboundSettings(v));
  return {
    ripplePeers: v.peers('ripple-peers') ?? [],
    cluster: clusterOf(v),
    port: v.int('port') ?? 8080,
    host: v.text('host') ?? '0.0.0.0',
    ...storageOf(v),
    adminKey: adminKeyOf(v),
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
    lockWaitMs: lockWaitMsOf(v),
    authFailureLimit: v.int('auth-failure-limit'),
    authFailureWindowSecs: v.int('auth-failure-window'),
    trustProxy: v.isOn('trust-proxy') ?? false,
    metricsPort: v.int('metrics-port'),
    metricsHost: v.text('metrics-host'),
    runSchedules: !(v.isOn('no-schedules') ?? false),
    functionEnv: parseEnvNameList(v.text('function-env')),
    // Requests in flight may use the whole of the stop's time; start.ts ends the process when it is up.
    drainMs: shutdownTimeoutMsOf(v),
  };
}

/**
 * A cluster node's options (`--nats` with `--cluster`), or undefined on a single node. UsageError when one comes
 * without the other, or `--durability replicated` without them.
 */
export function clusterOf(v: OptionValues): ServerConfig['cluster'] {
  const nats = v.text('nats');
  const name = v.text('cluster');
  if (!nats && !name) {
    if (v.text('durability') === 'replicated')
      throw new UsageError('--durability replicated needs a cluster: add --nats URL and --cluster NAME');
    return undefined;
  }
  if (!nats || !name) throw new UsageError('a cluster node needs both --nats URL[,URL...] and --cluster NAME');
  const port = v.int('port') ?? 8080;
  const host = v.text('host') ?? '0.0.0.0';
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    servers: nats
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url.length > 0),
    name,
    advertiseUrl: (v.text('advertise-url') ?? `http://${shown}:${port}`).replace(/\/+$/, ''),
    leaseTtlMs: v.int('lease-ttl') ?? DEFAULT_LEASE_TTL_MS,
    streamBounds: {
      maxBytes: v.int('stream-max-bytes') ?? DEFAULT_STREAM_BOUNDS.maxBytes,
      maxAgeMs: (v.int('stream-max-age') ?? DEFAULT_STREAM_BOUNDS.maxAgeMs / 1000) * 1000,
    },
  };
}

/** The default of `--shutdown-timeout`: under the 30 s Kubernetes waits after SIGTERM before it kills. */
export const SHUTDOWN_TIMEOUT_SECS = 25;

/** How long a stop may take (`--shutdown-timeout` seconds, EDDYDB_SHUTDOWN_TIMEOUT), in ms. */
export function shutdownTimeoutMsOf(v: OptionValues): number {
  return (v.int('shutdown-timeout') ?? SHUTDOWN_TIMEOUT_SECS) * 1000;
}

/** The operator's admin key, refused (UsageError) when too short to hold 128 bits (admin-key-strength.ts). */
function adminKeyOf(v: OptionValues): string | undefined {
  const key = v.text('admin-key');
  const weak = key === undefined ? undefined : weakAdminKeyReason(key, 'EDDYDB_ADMIN_KEY');
  if (weak) throw new UsageError(weak);
  return key;
}

/** Outbound host policy and e-mail settings (defaults that PUT /api/config may change). */
function outboundSettings(v: OptionValues): Partial<Settings> {
  const s: Partial<Settings> = {};
  const hosts = v.text('outbound-allow-hosts');
  if (hosts !== undefined) {
    const list = hosts
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '');
    const bad = list.find((h) => !isOutboundHostEntry(h));
    if (bad !== undefined)
      throw new UsageError(
        `invalid value for --outbound-allow-hosts / EDDYDB_OUTBOUND_ALLOW_HOSTS: '${bad}' (host names, *.suffix, IP ` +
          `addresses or CIDR ranges)`,
      );
    s.outbound_allow_hosts = list;
  }
  const allowPrivate = v.isOn('outbound-allow-private');
  if (allowPrivate !== undefined) s.outbound_allow_private = allowPrivate;
  const smtpHost = v.text('smtp-host');
  if (smtpHost) s.smtp_host = smtpHost;
  const smtpPort = v.int('smtp-port');
  if (smtpPort !== undefined) s.smtp_port = smtpPort;
  const smtpSecure = v.isOn('smtp-secure');
  if (smtpSecure !== undefined) s.smtp_secure = smtpSecure;
  const smtpUser = v.text('smtp-user');
  if (smtpUser) s.smtp_user = smtpUser;
  const smtpPassword = v.text('smtp-password');
  if (smtpPassword) s.smtp_password = smtpPassword;
  const sendgrid = v.text('sendgrid-api-url');
  if (sendgrid) {
    if (!/^https?:\/\/\S+$/.test(sendgrid))
      throw new UsageError(`invalid value for EDDYDB_SENDGRID_API_URL: '${sendgrid}' (an http(s) URL)`);
    s.sendgrid_api_url = sendgrid.replace(/\/+$/, '');
  }
  return s;
}

/**
 * How long to wait for the data directory's lock (`--lock-wait` seconds, EDDYDB_LOCK_WAIT), in ms; undefined: the
 * engine's 10 s.
 */
export function lockWaitMsOf(v: OptionValues): number | undefined {
  const secs = v.int('lock-wait');
  return secs === undefined ? undefined : secs * 1000;
}

/**
 * Memory only (`--memory`, EDDYDB_MEMORY=1) or the data directory. Throws UsageError for `--memory` with a data
 * directory or ripple peers given: both need the disk.
 */
function storageOf(v: OptionValues): ServerStorage {
  if (!v.isOn('memory')) return { dataDir: dataDirOf(v) };
  if (v.has('data-dir'))
    throw new UsageError(
      '--memory writes nothing to disk, so it takes no data directory: drop --data-dir (or EDDYDB_DATA_DIR) to run ' +
        'in memory, or drop --memory (or EDDYDB_MEMORY) to keep the data in that directory',
    );
  if ((v.peers('ripple-peers') ?? []).length > 0)
    throw new UsageError(
      'ripples need a data directory (peers read the log): drop --ripple-peers (or EDDYDB_RIPPLE_PEERS), or drop ' +
        '--memory (or EDDYDB_MEMORY)',
    );
  return { memory: true };
}

/** The absolute data directory (`--data-dir`, EDDYDB_DATA_DIR, or ./data). */
export function dataDirOf(v: OptionValues): string {
  return path.resolve(v.text('data-dir') ?? 'data');
}
