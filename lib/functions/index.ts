/**
 * Stored functions (issue 11): definitions compiled at save, the step table,
 * templates and the interpreter. Public surface; other folders import only
 * from here.
 */
export { compileDefinition, HTTP_METHODS, type CompiledFunction, type HttpMethod, type ParameterSpec } from './compiler/index.js';
export {
  bindParameters, callStoredFunction, CallBudget, CallLimitExceeded, boundsFromSettings, FUNCTION_TRANSACTION_OWNER,
  type CallBounds, type CallEnvironment, type CallResult, type CallStats, type StageStat,
} from './interpreter/index.js';
export { STEP_TABLE, STEPS, step, type CompiledStep, type Execution, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './steps/index.js';
export { compileTemplate, resolveTemplate, type Template, type TemplateScope } from './templates/index.js';
export * as limits from './limits.js';
export {
  ADMIN_ONLY_COLLECTIONS, definitionToWire, findRoute, FUNCTION_HISTORY_COLLECTION, FUNCTIONS_COLLECTION, FunctionRegistry, StoredFunctions,
  type RegistryWarn, type RouteHit, type StoredFunction,
} from './definitions/index.js';
