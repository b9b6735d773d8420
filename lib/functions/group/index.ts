/** The Group step's pure core (protocol.md 4.3): compile at save time, group working records at run time. */
export { compileGroup, MAX_GROUP_BY_FIELDS, MAX_GROUP_FUNCTIONS, type GroupFunction, type GroupSpec } from './compile-group.js';
export { groupRows, MISSING_GROUP_VALUE } from './group-rows.js';
export { GROUP_OPERATIONS, type GroupOperation, type GroupOperationName } from './group-operation.js';
export { GROUP_OPERATION_TABLE } from './operation-table.js';
