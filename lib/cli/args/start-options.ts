/**
 * The options of `eddydb start`, and those it shares with the offline tools
 * (the data directory, the lock wait, help), as rows of one table. With
 * commands.ts they are the single source of the parser, of `--help` and of
 * the option tables of the docs; read a new option in config.ts.
 */
import type { OptionSpec } from './option-spec.js';
import { CLUSTER_OPTIONS } from './cluster-options.js';

export const SWITCH = { kind: 'switch' } as const;
export const TEXT = { kind: 'text' } as const;
export const int = (min: number, max: number) => ({ kind: 'int', min, max }) as const;
/**
 * The engine's DURABILITY_MODES, spelled out so that help and usage errors
 * load no engine code (spec/cli/command-line.spec.ts checks they agree).
 */
export const DURABILITY_CHOICES = ['always', 'batch', 'none', 'replicated'] as const;

/** The server's LOG_LEVELS, spelled out for the same reason (spec/cli/command-line.spec.ts checks they agree). */
export const LOG_LEVEL_CHOICES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export const HELP: OptionSpec = {
  name: 'help',
  short: 'h',
  isFlag: true,
  value: SWITCH,
  help: 'show this help and exit',
};

export const CONFIG: OptionSpec = {
  name: 'config',
  isFlag: true,
  value: TEXT,
  env: 'EDDYDB_CONFIG',
  placeholder: 'FILE',
  defaultText: 'none',
  help:
    "a TOML file of the command's options under their own names (`port = 8443`); flags and environment variables " +
    'win over it (see Config file)',
};

export const DATA_DIR: OptionSpec = {
  name: 'data-dir',
  isFlag: true,
  value: TEXT,
  env: 'EDDYDB_DATA_DIR',
  placeholder: 'DIR',
  defaultText: '`./data`',
  help: 'data directory (log, snapshots, secrets)',
};

export const LOCK_WAIT: OptionSpec = {
  name: 'lock-wait',
  isFlag: true,
  value: int(0, 3600),
  env: 'EDDYDB_LOCK_WAIT',
  placeholder: 'SECS',
  defaultText: '`10`',
  help:
    'seconds to wait for the data directory while another process holds it (a killed server still going away) ' +
    'before refusing; `0` refuses at once',
};

export const START_OPTIONS: readonly OptionSpec[] = [
  CONFIG,
  {
    name: 'port',
    isFlag: true,
    value: int(0, 65535),
    env: 'PORT',
    placeholder: 'PORT',
    defaultText: '`8080`',
    help: 'HTTP and WebSocket port (0 picks a free one)',
  },
  {
    name: 'host',
    isFlag: true,
    value: TEXT,
    env: 'HOST',
    placeholder: 'HOST',
    defaultText: '`0.0.0.0`',
    help: 'listen address (`127.0.0.1` for this machine only)',
  },
  {
    name: 'tls-cert',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_TLS_CERT',
    placeholder: 'FILE',
    defaultText: 'none',
    help:
      'PEM certificate (with its chain) to serve HTTPS and WSS on the port, with `--tls-key`; both files are read ' +
      'again on SIGHUP (see TLS)',
  },
  {
    name: 'tls-key',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_TLS_KEY',
    placeholder: 'FILE',
    defaultText: 'none',
    help: "the certificate's PEM private key (unencrypted)",
  },
  DATA_DIR,
  {
    name: 'memory',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_MEMORY',
    defaultText: 'off',
    help:
      'memory only: no data directory, log, snapshot or lock, nothing written to disk, everything gone at exit ' +
      '(for tests); not with `--data-dir` or `--ripple-peers`',
  },
  LOCK_WAIT,
  {
    name: 'admin-key',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'EDDYDB_ADMIN_KEY',
    defaultText: 'generated',
    help:
      'the admin API key; when set, it replaces a stored one. It must be long enough to hold 128 bits (32 hex ' +
      'digits, 22 base64url characters, 20 printable ones): a shorter key stops the start',
  },
  {
    name: 'durability',
    isFlag: true,
    value: { kind: 'choice', values: DURABILITY_CHOICES },
    env: 'EDDYDB_DURABILITY',
    placeholder: 'MODE',
    defaultText: '`always`',
    help:
      '`always` (fsync before acknowledging, group commit), `batch` (fsync within 10 ms), `none` (OS buffered), ' +
      "`replicated` (a cluster's: fsync and the cluster's log both hold it; see docs/cluster.md)",
  },
  {
    name: 'rate-limit',
    isFlag: true,
    value: int(0, 1_000_000_000),
    env: 'EDDYDB_RATE_LIMIT',
    placeholder: 'N',
    defaultText: '`0` (off)',
    help: 'requests per key per window',
  },
  {
    name: 'rate-limit-window',
    isFlag: true,
    value: int(1, 86_400),
    env: 'EDDYDB_RATE_LIMIT_WINDOW',
    placeholder: 'SECS',
    defaultText: '`60`',
    help: 'window length in seconds',
  },
  {
    name: 'token-ttl',
    isFlag: true,
    value: int(60, 30 * 86_400),
    env: 'EDDYDB_TOKEN_TTL',
    placeholder: 'SECS',
    defaultText: '`3600`',
    help: 'token lifetime in seconds',
  },
  {
    name: 'max-batch-size',
    isFlag: true,
    value: int(1, 1_000_000),
    env: 'EDDYDB_MAX_BATCH_SIZE',
    placeholder: 'N',
    defaultText: '`10000`',
    help: 'records per batch request',
  },
  {
    name: 'body-limit',
    isFlag: true,
    value: int(1, 2 ** 32),
    env: 'EDDYDB_BODY_LIMIT',
    placeholder: 'BYTES',
    defaultText: '`33554432`',
    help: 'request body limit in bytes (413 above it)',
  },
  {
    name: 'snapshot-bytes',
    isFlag: true,
    value: int(1, Number.MAX_SAFE_INTEGER),
    env: 'EDDYDB_SNAPSHOT_BYTES',
    placeholder: 'BYTES',
    defaultText: '`67108864`',
    help:
      'snapshot when the current log segment passes this size (unset: 64 MiB, or half the last snapshot when that ' +
      'is more)',
  },
  {
    name: 'snapshot-cron',
    isFlag: true,
    value: { kind: 'cron' },
    env: 'EDDYDB_SNAPSHOT_CRON',
    placeholder: 'CRON',
    defaultText: '`0 * * * *`',
    help: 'cron schedule for snapshots, on local time (empty disables)',
  },
  {
    name: 'ripple-peers',
    isFlag: true,
    value: { kind: 'peers' },
    env: 'EDDYDB_RIPPLE_PEERS',
    placeholder: 'PEERS',
    defaultText: 'none',
    help: 'replication peers, `url|api_key,...`',
  },
  ...CLUSTER_OPTIONS,
  {
    name: 'heal-retry-ms',
    isFlag: true,
    value: int(1, 3_600_000),
    env: 'EDDYDB_HEAL_RETRY_MS',
    placeholder: 'MS',
    defaultText: '`1000`',
    help: 'after a storage failure, first repair attempt after this many ms, then doubling',
  },
  {
    name: 'heal-retry-max-ms',
    isFlag: true,
    value: int(1, 86_400_000),
    env: 'EDDYDB_HEAL_RETRY_MAX_MS',
    placeholder: 'MS',
    defaultText: '`30000`',
    help: 'longest wait between repair attempts',
  },
  {
    name: 'function-env',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_FUNCTION_ENV',
    placeholder: 'NAMES',
    defaultText: 'none',
    help:
      'comma list of environment variables stored functions may read as `{{env.NAME}}` (the setting ' +
      '`function_env_allowlist` adds more)',
  },
  {
    name: 'openai-api-key',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'OPENAI_API_KEY',
    defaultText: 'none',
    help: '`openai` chat provider and embeddings key (`openai_api_key`)',
  },
  {
    name: 'openai-base-url',
    isFlag: false,
    value: TEXT,
    env: 'OPENAI_BASE_URL',
    defaultText: '`https://api.openai.com/v1`',
    help: 'its base URL (`openai_api_url`); a URL alone configures it',
  },
  {
    name: 'anthropic-api-key',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'ANTHROPIC_API_KEY',
    defaultText: 'none',
    help: '`anthropic` chat provider key (`anthropic_api_key`)',
  },
  {
    name: 'anthropic-base-url',
    isFlag: false,
    value: TEXT,
    env: 'ANTHROPIC_BASE_URL',
    defaultText: '`https://api.anthropic.com/v1`',
    help: 'its base URL (`anthropic_api_url`)',
  },
  {
    name: 'perplexity-api-key',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'PERPLEXITY_API_KEY',
    defaultText: 'none',
    help: '`perplexity` chat provider key (`perplexity_api_key`)',
  },
  {
    name: 'perplexity-base-url',
    isFlag: false,
    value: TEXT,
    env: 'PERPLEXITY_BASE_URL',
    defaultText: '`https://api.perplexity.ai`',
    help: 'its base URL (`perplexity_api_url`)',
  },
  {
    name: 'openai-compatible-url',
    isFlag: false,
    value: TEXT,
    env: 'OPENAI_COMPATIBLE_URL',
    defaultText: 'none',
    help:
      "`openai_compatible` chat provider (Ollama, vLLM, llama.cpp, LM Studio): the server's root URL " +
      '(`openai_compatible_url`)',
  },
  {
    name: 'openai-compatible-api-key',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'OPENAI_COMPATIBLE_API_KEY',
    defaultText: 'none',
    help: 'its key, if it wants one (`openai_compatible_api_key`)',
  },
  {
    name: 'outbound-allow-hosts',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_OUTBOUND_ALLOW_HOSTS',
    placeholder: 'LIST',
    defaultText: 'none',
    help:
      'private, loopback or link-local destinations that function steps may call (comma separated host names, ' +
      '`*.suffix`, IP addresses, CIDR ranges)',
  },
  {
    name: 'outbound-allow-private',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_OUTBOUND_ALLOW_PRIVATE',
    defaultText: 'off',
    help: 'let function steps call every private, loopback and link-local address',
  },
  {
    name: 'smtp-host',
    isFlag: false,
    value: TEXT,
    env: 'EDDYDB_SMTP_HOST',
    defaultText: 'none',
    help: 'SMTP server of the EmailSend step',
  },
  {
    name: 'smtp-port',
    isFlag: false,
    value: int(1, 65_535),
    env: 'EDDYDB_SMTP_PORT',
    defaultText: '`587`',
    help: 'its port',
  },
  {
    name: 'smtp-secure',
    isFlag: false,
    value: SWITCH,
    env: 'EDDYDB_SMTP_SECURE',
    defaultText: 'off',
    help: 'TLS from the first byte (port 465); off: STARTTLS when offered',
  },
  { name: 'smtp-user', isFlag: false, value: TEXT, env: 'EDDYDB_SMTP_USER', defaultText: 'none', help: 'SMTP login' },
  {
    name: 'smtp-password',
    isFlag: false,
    isSecret: true,
    value: TEXT,
    env: 'EDDYDB_SMTP_PASSWORD',
    defaultText: 'none',
    help: 'SMTP password (never shown by `GET /api/config`)',
  },
  {
    name: 'sendgrid-api-url',
    isFlag: false,
    value: TEXT,
    env: 'EDDYDB_SENDGRID_API_URL',
    defaultText: '`https://api.sendgrid.com`',
    help: "base URL of EmailSend's `sendgrid` provider",
  },
  {
    name: 'salvage',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_SALVAGE',
    defaultText: 'off',
    help: 'when damaged files would stop the start, start from what is readable (see Durability and operations)',
  },
  {
    name: 'log-level',
    isFlag: true,
    value: { kind: 'choice', values: LOG_LEVEL_CHOICES },
    env: 'EDDYDB_LOG_LEVEL',
    placeholder: 'LEVEL',
    defaultText: '`info`',
    help: 'lowest level logged: `trace`, `debug`, `info`, `warn`, `error`, `fatal`, or `silent`',
  },
  {
    name: 'access-log',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_ACCESS_LOG',
    defaultText: 'off',
    help: 'one info line per HTTP request (see Logs below)',
  },
  {
    name: 'log-format',
    isFlag: true,
    value: { kind: 'choice', values: ['json', 'text'] },
    env: 'EDDYDB_LOG_FORMAT',
    placeholder: 'FORMAT',
    defaultText: '`json`',
    help: "`json` (pino's JSON lines) or `text` (one readable line per entry)",
  },
  {
    name: 'quiet',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_QUIET',
    defaultText: 'off',
    help: 'log warnings and errors only',
  },
  {
    name: 'auth-failure-limit',
    isFlag: true,
    value: int(0, 1_000_000),
    env: 'EDDYDB_AUTH_FAILURE_LIMIT',
    placeholder: 'N',
    defaultText: '`10`',
    help: 'failed `POST /api/auth/token` attempts per client address and window before 429 (`0` disables)',
  },
  {
    name: 'auth-failure-window',
    isFlag: true,
    value: int(1, 86_400),
    env: 'EDDYDB_AUTH_FAILURE_WINDOW',
    placeholder: 'SECS',
    defaultText: '`60`',
    help: "that window in seconds, opened by the address's first failure",
  },
  {
    name: 'no-schedules',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_NO_SCHEDULES',
    defaultText: 'off',
    help:
      'serve the schedule routes but fire no schedule here (with ripple peers, let one node fire them; see ' +
      'Schedules)',
  },
  {
    name: 'idle-compaction-mb',
    isFlag: true,
    value: int(0, 1_000_000),
    env: 'EDDYDB_IDLE_COMPACTION_MB',
    placeholder: 'MB',
    defaultText: '`64`',
    help:
      'after resident memory grew by this much (and a quarter), compact it once the server is quiet for 0.75 s, ' +
      'at most one request in each quarter second and its event loop busy under a quarter of the time (the event ' +
      'loop is held up to about 30 ms at a time at a million records; `0` disables; see Memory)',
  },
  {
    name: 'helper-priority',
    isFlag: true,
    value: { kind: 'choice', values: ['low', 'normal'] },
    env: 'EDDYDB_HELPER_PRIORITY',
    placeholder: 'LEVEL',
    defaultText: '`low`',
    help:
      "`low`: while long work runs in slices (a large batch), V8's helper threads (garbage collection, " +
      'compilation) run at a low priority (nice 10), so the core serves requests between the slices; `normal` leaves ' +
      'them as Node starts them (Linux; see Memory)',
  },
  {
    name: 'trust-proxy',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_TRUST_PROXY',
    defaultText: 'off',
    help: 'behind a reverse proxy: the client address is the last `X-Forwarded-For` entry',
  },
  {
    name: 'metrics-port',
    isFlag: true,
    value: int(0, 65535),
    env: 'EDDYDB_METRICS_PORT',
    placeholder: 'PORT',
    defaultText: 'off',
    help:
      'also serve the Prometheus metrics at `/metrics` on this port, without a token (the API port serves them to ' +
      'an admin token); see Metrics',
  },
  {
    name: 'metrics-host',
    isFlag: true,
    value: TEXT,
    env: 'EDDYDB_METRICS_HOST',
    placeholder: 'HOST',
    defaultText: '`127.0.0.1`',
    help: 'listen address of the metrics port (loopback by default: this machine only)',
  },
  {
    name: 'watch-parent',
    isFlag: true,
    value: SWITCH,
    env: 'EDDYDB_WATCH_PARENT',
    defaultText: 'on under npm',
    help:
      'shut down cleanly when the parent process dies (an `npm start` killed by its PID); ' +
      '`EDDYDB_WATCH_PARENT=0` turns it off',
  },
  {
    name: 'shutdown-timeout',
    isFlag: true,
    value: int(1, 86_400),
    env: 'EDDYDB_SHUTDOWN_TIMEOUT',
    placeholder: 'SECS',
    defaultText: '`25`',
    help:
      'on SIGTERM or SIGINT, seconds for requests in flight, schedule runs and the final snapshot to finish; past ' +
      'them the process exits 1 naming what was still running (acknowledged writes are in the log either way)',
  },
  { name: 'version', isFlag: true, value: SWITCH, help: 'print the version and exit' },
  HELP,
];
