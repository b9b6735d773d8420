/**
 * A collection's records (RecordTable): fields and versions in slots by
 * insertion ordinal, found by id through an open-addressing table (SlotIndex).
 */
export { RecordTable, type RecordEntry } from './record-table.js';
