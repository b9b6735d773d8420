/**
 * The package's main entry, `import { Server } from 'eddydb'`: the server and
 * its configuration, for running EddyDB inside a node program, and the engine
 * types that configuration mentions. The express adapter is `eddydb/express`
 * (lib/express.ts); the whole engine surface is `eddydb/engine`
 * (lib/engine/index.ts). Package entry points are the only files that may
 * import lib/http besides lib/cli (spec/architecture.spec.ts).
 */
export { Server, VERSION, type ServerConfig, type TlsCredentials } from './http/index.js';
export type { Dispatcher } from './http/index.js';
export {
  DEFAULT_SETTINGS,
  DURABILITY_MODES,
  ManualClock,
  systemClock,
  type Clock,
  type DurabilityMode,
  type IsolationLevel,
  type LogLevel,
  type Settings,
  type StorageFs,
  type StorageStatus,
} from './engine/index.js';
