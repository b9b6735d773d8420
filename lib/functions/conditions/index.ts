/** FunctionCondition (protocol.md 4.4): compile at save time, evaluate against working records. */
export {
  CONDITION_TYPES,
  holdsPlaceholder,
  type Condition,
  type ConditionType,
  type ResolveValue,
} from './condition.js';
export {
  compileCondition,
  CONDITIONS,
  evaluateCondition,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_NODES,
  type CompileConditionOptions,
} from './condition-table.js';
