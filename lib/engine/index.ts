/** Public surface of the engine. Other folders import only from here. */
export { Database, type DatabaseOptions } from './database.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { ADMIN_KEY_ID, describeKey, parseKeyRequest } from './api-keys.js';
export { isInternalCollection, validateCollectionName } from './names.js';
export { validateId } from './ids.js';
export { TRASH_RETENTION_MS } from './trash.js';
export { DEFAULT_SETTINGS, ISOLATION_LEVELS, type IsolationLevel, type Settings } from './settings.js';
export { DURABILITY_MODES, type DurabilityMode } from './storage/log-writer.js';
export { nodeFs, type StorageFs, type StorageFile } from './storage/fs.js';
export { parseQuery, type Query } from './query/index.js';
export type { ApiKeyRecord, CollectionPermission } from './state.js';
export type { Effect, LoggedBatch } from './effects.js';
export { recordToWire, valueToWire, fieldsFromWire, toJson, type Fields, type Value } from './values/index.js';
export { verifyDataDir, type FileReport } from './storage/verify.js';
export type { BulkResult } from './bulk.js';
export { CLEANUP_INTERVAL_MS, type TransactionStatus } from './transactions/transaction-manager.js';
export type { BulkItem, BulkFailure } from './bulk.js';
export { parseActionSequence } from './update-actions.js';
