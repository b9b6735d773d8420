/**
 * Public surface of the engine (also the package entry `eddydb/engine`).
 * Other folders import only from here, and it exports only what they use:
 * the engine's own specs import its modules by their paths.
 */
// The façade, and the statement interface (Session) other layers write through.
export { Database, type DatabaseOptions } from './database.js';
export {
  isTransactionSession,
  type Caller,
  type SearchResult,
  type Session,
  type TransactionSession,
} from './session/index.js';
export type { BulkFailure, BulkItem, BulkResult } from './records/bulk.js';
export type { UpsertTarget } from './records/multi-writes.js';
export type { TrashPage } from './records/trash.js';
export { applyActionSequence, parseActionSequence, type ActionStep } from './records/update-actions.js';
export type { LogLevel } from './engine-log.js';
export type { EngineObserver } from './observer.js';

// Time.
export { ManualClock, systemClock, type Clock } from './time/clock.js';
export { CronSchedule } from './time/cron.js';
export { CronTimer } from './time/cron-timer.js';
export { resolveTtl } from './time/ttl.js';
export { beforeLongWorkResumes, Slicer, whileSlicedWorkRuns, yieldSlicedWork, yieldToLoop } from './time/slices.js';

// Input checks and the names of things.
export { checkLimit, MAX_EMBED_TEXTS, MAX_FIELD_NAMES } from './input/limits.js';
export { rejectUnknownMembers } from './input/members.js';
export { isInternalCollection, validateCollectionName } from './collections/names.js';
export {
  ALIAS_RULE,
  INDEX_FIELD_RULE,
  isAliasName,
  isIndexableField,
  type SchemaChange,
  type SchemaDefinition,
} from './collections/collections.js';
export { validateId } from './records/ids.js';
export { parseKvKeys, validateKvKey, VALUES_RULE } from './kv/kv.js';

// Administration: API keys and run-time settings.
export { describeKey, parseKeyRequest } from './admin/api-keys.js';
export type { ApiKeyRecord, CollectionPermission, KvPermission } from './write/state.js';
export {
  DEFAULT_SETTINGS,
  ISOLATION_LEVELS,
  isOutboundHostEntry,
  maskSecret,
  parseSettingsPatch,
  SECRET_SETTINGS,
  type IsolationLevel,
  type Settings,
} from './admin/settings.js';
export {
  isIsolationLevel,
  isSavepointName,
  isTransactionTimeout,
  SAVEPOINT_NAME_RULE,
  TIMEOUT_RULE,
} from './transactions/transaction-manager.js';
export type { TransactionStatus } from './transactions/transaction-registry.js';

// Storage: durability, the data directory, health, verification; the log as replication ships it.
export { DURABILITY_MODES, type DurabilityMode } from './storage/log/log-writer.js';
export type { CommitLog, StagedGroup } from './storage/log/commit-log.js';
export { framePayloads } from './storage/frame.js';
export { decodeBatch, encodeBatch } from './storage/codec.js';
export { snapshotName } from './storage/snapshot/snapshot.js';
export { nodeFs, type StorageFs } from './storage/fs.js';
export type { StorageEvent, StorageStatus } from './storage/storage-health.js';
export type { StorageFault } from './storage/storage-fault.js';
export { checkDataDirPrivacy, securePristineDir } from './storage/dir-permissions.js';
export { DirLock, type LockMechanism } from './storage/lock.js';
export {
  verifyGenerations,
  type CollectionCount,
  type FileReport,
  type VerifyResult,
} from './storage/recovery/verify.js';
export { isSegmentName, isSnapshotName } from './storage/generations.js';
export { BACKUP_MAGIC, type BackupManifest, type BackupStream } from './storage/backup/backup.js';
export { readBackup, restoreBackup, type BackupContents } from './storage/backup/backup-file.js';
export type { RecoveryReport } from './storage/recovery/recovery-report.js';
export type { LoggedBatch } from './write/effects.js';
export type { CommitInfo } from './write/change-feed.js';
export type { Operation, WriteQueue } from './write/write-queue.js';
export { encodeShipped, parseShipped, type ResyncPlan, type ShippedBatch } from './ripple/replication.js';
export { ChangeNotifier } from './write/change-notifier.js';
export { Checkpoint, Checkpoints } from './write/checkpoints.js';

// Values, queries, search and patterns.
export {
  assertSafeKey,
  bareValue,
  compareValues,
  equalValues,
  fieldFromWire,
  fieldsFromWire,
  fromJson,
  hashKey,
  integerValue,
  isPlainObject,
  isTypedWrapper,
  jsonParser,
  ownString,
  recordJson,
  recordsJson,
  recordMsgpack,
  recordToWire,
  sortCompare,
  storedArray,
  Tagged,
  toJson,
  valueToWire,
  type Fields,
  type Value,
} from './values/index.js';
export {
  applyProjection,
  compileProjection,
  getPath,
  matchFilter,
  parseFieldList,
  parseFieldPath,
  parseFilter,
  parseJoin,
  parseQuery,
  parseSort,
  sortRecords,
  type Filter,
  type Join,
  type Projection,
  type Query,
  type SortKey,
} from './query/index.js';
export { indexDefs } from './indexes/index-manager.js';
export { parseSearch, runSearch, type SearchHit, type SearchRequest } from './search/search.js';
export { CATCH_UP_SHOWN, PACED_PENDING } from './search/search-indexes.js';
export { compilePattern, requirePattern, type Pattern } from './pattern/index.js';
