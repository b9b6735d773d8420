/** Public surface of the engine. Other folders import only from here. */
export { Database, type DatabaseOptions } from './database.js';
export { isTransactionSession, type Caller, type SearchResult, type Session, type TransactionSession } from './session/index.js';
export type { EngineLog, LogLevel } from './engine-log.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { ADMIN_KEY_ID, describeKey, parseKeyRequest } from './api-keys.js';
export { isInternalCollection, validateCollectionName } from './names.js';
export { CRON_HORIZON_YEARS, CronSchedule } from './cron.js';
export { CronTimer } from './cron-timer.js';
export { ALIAS_RULE, INDEX_FIELD_RULE, isAliasName, isIndexableField, type SchemaChange, type SchemaDefinition } from './collections.js';
export { validateId } from './ids.js';
export { parseKvKeys, validateKvKey, VALUES_RULE } from './kv.js';
export { TRASH_RETENTION_MS } from './trash.js';
export { DEFAULT_SETTINGS, ISOLATION_LEVELS, isOutboundHostEntry, maskSecret, parseSettingsPatch, SECRET_SETTINGS, type IsolationLevel, type Settings } from './settings.js';
export { DURABILITY_MODES, type DurabilityMode } from './storage/log-writer.js';
export { nodeFs, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type StorageFs, type StorageFile } from './storage/fs.js';
export { DEFAULT_HEAL_OPTIONS, type HealOptions, type StorageEvent, type StorageStatus } from './storage-health.js';
export type { StorageFault } from './storage/storage-fault.js';
export { checkDataDirPrivacy } from './storage/dir-permissions.js';
export { parseFieldPath, parseFilter, parseQuery, type Filter, type Query } from './query/index.js';
export { checkLimit, MAX_EMBED_TEXTS, MAX_FIELD_NAMES } from './limits.js';
export { rejectUnknownMembers } from './members.js';
export type { ApiKeyRecord, CollectionPermission, KvPermission } from './state.js';
export type { Effect, LoggedBatch } from './effects.js';
export {
  recordToWire, recordJson, recordMsgpack, valueToWire, bareValue, fieldsFromWire, fieldFromWire, compareValues, equalValues, fromJson, jsonParser, integerValue, ownString, toJson, isPlainObject, isTypedWrapper, Tagged, typeOf,
  type Fields, type Value,
} from './values/index.js';
export { verifyDataDir, verifyGenerations, type CollectionCount, type FileReport, type GenerationReport, type StartVerdict, type VerifyResult } from './storage/verify.js';
export { isSegmentName, isSnapshotName } from './storage/generations.js';
export { describeDamage, type DamagedFile, type RecoveryReport } from './storage/recovery-report.js';
export type { BulkResult } from './bulk.js';
export type { UpsertTarget } from './multi-writes.js';
export { CLEANUP_INTERVAL_MS, type TransactionStatus } from './transactions/transaction-registry.js';
export { isIsolationLevel, isSavepointName, isTransactionTimeout, SAVEPOINT_NAME_RULE, TIMEOUT_RULE } from './transactions/transaction-manager.js';
export type { BulkItem, BulkFailure } from './bulk.js';
export { applyActionSequence, parseActionSequence, type ActionStep } from './update-actions.js';
export { parseShipped, type ResyncPlan, type ShippedBatch } from './ripple/replication.js';
export { encodePayload, decodePayload } from './storage/codec.js';
export type { CommitInfo, RecordChange, ChangeKind } from './change-feed.js';
export { indexDefs } from './indexes/index-manager.js';
export { parseSearch, runSearch, type SearchHit, type SearchRequest } from './search/search.js';
export { compilePattern, requirePattern, MAX_PATTERN_LENGTH, MAX_GROUP_DEPTH, MAX_PROGRAM_SIZE, type CompiledPattern, type Pattern } from './pattern/index.js';
export { ChangeNotifier, type ChangeFilter, type ChangeListener, type ChangeSubscription, type MutationNotice, type SchemaNotice } from './change-notifier.js';
export { assertSafeKey, hashKey, sortCompare } from './values/index.js';
export { getPath } from './query/index.js';
export { applyProjection, compileProjection, matchFilter, parseFieldList, parseJoin, parseSort, sortRecords, type Join, type Projection, type SortKey } from './query/index.js';
export { resolveTtl, type ResolvedTtl } from './ttl.js';
export { yieldToLoop, yieldSlicedWork, beforeLongWorkResumes, whileSlicedWorkRuns } from './slices.js';
