/**
 * Stored functions (issue 11): definitions compiled at save, the step table,
 * templates and the interpreter. Public surface; other folders import only
 * from here.
 */
export { compileDefinition, type CompiledFunction, type CompileOptions, type ParameterSpec } from './compiler/index.js';
export {
  bindParameters, callStoredFunction, CallBudget, CallLimitExceeded, boundsFromSettings, FUNCTION_TRANSACTION_OWNER,
  functionEnv, NO_FUNCTION_ENV, parseEnvNameList,
  type CallBounds, type CallEnvironment, type CallResult, type CallStats, type FunctionEnv, type FunctionEnvSource, type StageStat,
} from './interpreter/index.js';
export {
  AI_ROLES, NO_FUNCTION_AI, type AiCompletion, type AiCompletionRequest, type AiEmbeddings, type AiMessage, type AiRole, type BcryptJob,
  type BcryptRunner, type FunctionAi, type FunctionEngine, type KeyValueStore,
} from './services.js';
export { BcryptWorkerPool, SLICED_BCRYPT, swrSettled } from './steps/index.js';
export { STEP_TABLE, STEPS, step, type CompiledStep, type Execution, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './steps/index.js';
export { compileTemplate, resolveTemplate, type Template, type TemplateScope } from './template.js';
export * as limits from './limits.js';
export {
  ADMIN_ONLY_COLLECTIONS, definitionToWire, findRoute, redactDefinition, REDACTED, FUNCTION_HISTORY_COLLECTION, FUNCTIONS_COLLECTION, FunctionRegistry, StoredFunctions,
  type FunctionEnvironmentOptions, type RegistryWarn, type RouteHit, type StoredFunction,
} from './definitions/index.js';
export {
  compileCondition, evaluateCondition, holdsPlaceholder, CONDITION_TYPES, CONDITIONS, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES,
  type CompileConditionOptions, type Condition, type ConditionType, type ResolveValue,
} from './conditions/index.js';
export {
  compileGroup, groupRows, GROUP_OPERATIONS, GROUP_OPERATION_TABLE, MAX_GROUP_BY_FIELDS, MAX_GROUP_FUNCTIONS, MISSING_GROUP_VALUE,
  type GroupFunction, type GroupOperation, type GroupOperationName, type GroupSpec,
} from './group/index.js';
export {
  compilePathPattern, matchRoute, mergeRouteParams, parseHttpMethod, HTTP_METHODS, MAX_ROUTE_PATH_LENGTH, MAX_ROUTE_SEGMENTS,
  type HttpMethod, type PathPattern, type PatternSegment, type RouteCandidate, type RouteMatch,
} from './path-routes.js';
