/** Public surface of the HTTP layer (the composition root). */
export { Server, VERSION, type ServerConfig, type ServerStorage } from './server.js';
export { LOG_LEVELS, type LogFormat, type LogLevel, type LogThreshold, type ServerLog } from './log/server-log.js';
export { Dispatcher } from './routing/dispatch.js';
export type { TestClockView, TestControl } from './procedures/context.js';
export { ServerCheckpoint, ServerCheckpoints, type Restorable } from './server-checkpoints.js';
export { MEMORY_ONLY } from './log/startup-summary.js';
export {
  createConsoleHandler,
  createExpressHandler,
  type ExpressHandler,
  type ExpressNext,
  type ExpressRequest,
  type ExpressResponse,
} from './transport/express-adapter.js';
export { createClientErrorHandler } from './transport/socket-response.js';
export type { TlsCredentials } from './transport/node-server.js';
export { loadAddon } from './wire/native-addon.js';
