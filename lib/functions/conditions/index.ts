/** FunctionCondition (protocol.md 4.4): compile at save time, evaluate against working records. */
export { CONDITION_TYPES, type Condition, type ConditionType, type ResolveValue } from './condition.js';
export { compileCondition, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, type CompileConditionOptions } from './compile-condition.js';
export { evaluateCondition } from './evaluate-condition.js';
export { CONDITIONS } from './condition-table.js';
export { holdsPlaceholder } from './operand.js';
