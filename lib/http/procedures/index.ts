/** The procedure registry: one object literal of every procedure. */
import { buildRegistry } from '../procedure.js';
import * as system from './system.js';
import * as keys from './keys.js';
import * as collections from './collections.js';
import * as records from './records.js';

export function createRegistry() {
  return buildRegistry([
    system.healthGet, system.authToken, system.configGet, system.configUpdate, system.adminSnapshot,
    keys.keysCreate, keys.keysList, keys.keysRevoke,
    collections.collectionsList, collections.collectionsCreate, collections.collectionsGet, collections.collectionsDelete,
    collections.schemasGet, collections.schemasUpdate, collections.schemasSetAlias,
    collections.trashRestore, collections.trashRestoreCollection,
    records.recordsInsert, records.recordsFindById, records.recordsFind, records.recordsUpdate,
    records.recordsUpdateAction, records.recordsUpdateSequence, records.recordsDelete,
    records.recordsDistinct, records.recordsCount,
  ]);
}
