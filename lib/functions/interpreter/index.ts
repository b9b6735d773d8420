/** The interpreter: one call, its budget, its execution of steps. */
export {
  bindParameters,
  callStoredFunction,
  FUNCTION_TRANSACTION_OWNER,
  type CallEnvironment,
  type CallResult,
  type CallStats,
} from './run-function.js';
export { CallBudget, CallLimitExceeded, boundsFromSettings, type CallBounds } from './call-budget.js';
export type { StageStat } from './execution.js';
export {
  functionEnv,
  NO_FUNCTION_ENV,
  parseEnvNameList,
  type FunctionEnv,
  type FunctionEnvSource,
} from './function-env.js';
