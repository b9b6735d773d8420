/** The Group step's pure core (protocol.md 4.3): compile at save time, group working records at run time. */
export {
  compileGroup,
  groupRows,
  MAX_GROUP_BY_FIELDS,
  MAX_GROUP_FUNCTIONS,
  MISSING_GROUP_VALUE,
  type GroupFunction,
  type GroupSpec,
} from './group-rows.js';
export {
  GROUP_OPERATION_TABLE,
  GROUP_OPERATIONS,
  type GroupOperation,
  type GroupOperationName,
} from './group-operations.js';
