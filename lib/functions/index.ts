/** Public surface of stored functions. Other folders import only from here. */
export {
  compileCondition, evaluateCondition, holdsPlaceholder, CONDITION_TYPES, CONDITIONS, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES,
  type CompileConditionOptions, type Condition, type ConditionType, type ResolveValue,
} from './conditions/index.js';
