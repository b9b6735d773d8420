/** The procedure registry: one object literal of every procedure. */
import { buildRegistry, type Registry } from './procedure.js';
import * as system from './server/system.js';
import * as probes from './server/probes.js';
import { adminBackup } from './server/backup.js';
import * as keys from './server/keys.js';
import * as metrics from './server/metrics.js';
import * as collections from './collections.js';
import * as records from './records/records.js';
import * as batch from './records/batch.js';
import * as tx from './records/transactions.js';
import * as ripple from './server/ripple.js';
import * as kv from './kv.js';
import * as indexes from './indexes.js';
import * as embed from './chat/embed.js';
import * as search from './records/search.js';
import * as changes from './records/changes.js';
import * as functions from './functions.js';
import * as chatProviders from './chat/providers.js';
import * as chat from './chat/sessions.js';
import * as chatStream from './chat/stream.js';
import * as chatTools from './chat/tools.js';
import { WORKFLOW_PROCEDURES } from './workflow.js';
import { TESTING_PROCEDURES } from './server/testing.js';
import { openApiProcedure } from '../openapi/index.js';

export function createRegistry(): Registry {
  const registry: Registry = buildRegistry([
    system.healthGet,
    system.authToken,
    system.configGet,
    system.configUpdate,
    system.adminSnapshot,
    metrics.metricsScrape,
    adminBackup,
    probes.healthLive,
    probes.healthReady,
    keys.keysCreate,
    keys.keysList,
    keys.keysMe,
    keys.keysUpdate,
    keys.keysRevoke,
    collections.collectionsList,
    collections.collectionsCreate,
    collections.collectionsGet,
    collections.collectionsDelete,
    collections.schemasGet,
    collections.schemasUpdate,
    collections.schemasSetAlias,
    collections.trashList,
    collections.trashRestore,
    collections.trashRestoreCollection,
    records.recordsInsert,
    records.recordsFindById,
    records.recordsFind,
    records.recordsUpdate,
    records.recordsUpdateAction,
    records.recordsUpdateSequence,
    records.recordsDelete,
    records.recordsDistinct,
    records.recordsCount,
    batch.batchInsert,
    batch.batchUpdate,
    batch.batchDelete,
    tx.transactionsBegin,
    tx.transactionsList,
    tx.transactionsStatus,
    tx.transactionsCommit,
    tx.transactionsRollback,
    tx.savepointsCreate,
    tx.savepointsRollback,
    tx.savepointsRelease,
    tx.auditList,
    ripple.rippleApply,
    ripple.rippleStatus,
    ripple.rippleResync,
    kv.kvSet,
    kv.kvGet,
    kv.kvDelete,
    kv.kvClear,
    kv.kvBatchGet,
    kv.kvBatchSet,
    kv.kvBatchDelete,
    kv.kvFind,
    kv.kvLinks,
    kv.kvLink,
    kv.kvUnlink,
    indexes.indexesCreate,
    indexes.indexesList,
    indexes.indexesDrop,
    indexes.queryExplain,
    embed.embed,
    search.searchQuery,
    changes.changesSubscribe,
    functions.functionsCreate,
    functions.functionsList,
    functions.functionsGet,
    functions.functionsReplace,
    functions.functionsDelete,
    functions.functionsCall,
    functions.functionsRouteGet,
    functions.functionsRoutePost,
    functions.functionsRoutePut,
    functions.functionsRoutePatch,
    functions.functionsRouteDelete,
    chatProviders.chatModelsList,
    chatProviders.chatModelsGet,
    chatProviders.chatComplete,
    chatProviders.chatCompleteStream,
    chat.chatCreate,
    chat.chatList,
    chat.chatBranch,
    chat.chatMerge,
    chat.chatGet,
    chat.chatUpdate,
    chat.chatDelete,
    chat.chatSend,
    chat.chatMessagesList,
    chat.chatMessageGet,
    chat.chatMessageUpdate,
    chat.chatMessageDelete,
    chat.chatMessageForgotten,
    chat.chatMessageRegenerate,
    chat.chatCompact,
    chat.chatToolResult,
    chatStream.chatSendStream,
    chatStream.chatSendStreamWs,
    chatTools.chatToolsList,
    chatTools.chatToolsExecute,
    ...WORKFLOW_PROCEDURES,
    ...TESTING_PROCEDURES,
    // The document describes the registry it is part of.
    openApiProcedure(() => registry),
  ]);
  return registry;
}
