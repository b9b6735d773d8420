/**
 * Stored functions: definitions compiled at save (compiler/), the step table
 * (steps/), conditions and group operations as tables, templates, the
 * interpreter, and the registry and service the transports call
 * (definitions/). Steps reach the engine only through their session and the
 * small services of services.ts. Public surface; other folders import only
 * from here.
 */
export { compileDefinition, type CompiledFunction, type CompileOptions, type ParameterSpec } from './compiler/index.js';
export {
  bindParameters,
  boundsFromSettings,
  CallBudget,
  CallLimitExceeded,
  callStoredFunction,
  FUNCTION_TRANSACTION_OWNER,
  functionEnv,
  NO_FUNCTION_ENV,
  parseEnvNameList,
  type CallBounds,
  type CallEnvironment,
  type CallResult,
  type CallStats,
  type FunctionEnv,
  type FunctionEnvSource,
  type StageStat,
} from './interpreter/index.js';
export {
  AI_ROLES,
  NO_FUNCTION_AI,
  type AiCompletion,
  type AiCompletionRequest,
  type AiEmbeddings,
  type AiMessage,
  type AiRole,
  type BcryptJob,
  type BcryptRunner,
  type FunctionAi,
  type FunctionEngine,
  type KeyValueStore,
} from './services.js';
export {
  BcryptWorkerPool,
  SLICED_BCRYPT,
  step,
  STEP_TABLE,
  STEPS,
  swrSettled,
  type CompiledStep,
  type Execution,
  type MemberReader,
  type Returned,
  type Row,
  type StepAccess,
  type StepType,
} from './steps/index.js';
export { compileTemplate, resolveTemplate, type Template, type TemplateScope } from './template.js';
export * as limits from './limits.js';
export {
  ADMIN_ONLY_COLLECTIONS,
  definitionToWire,
  findRoute,
  FUNCTION_HISTORY_COLLECTION,
  FUNCTIONS_COLLECTION,
  FunctionRegistry,
  redactDefinition,
  REDACTED,
  StoredFunctions,
  type FunctionCallObserver,
  type FunctionEnvironmentOptions,
  type RegistryWarn,
  type RouteHit,
  type StoredFunction,
} from './definitions/index.js';
export {
  compileCondition,
  CONDITION_TYPES,
  CONDITIONS,
  evaluateCondition,
  holdsPlaceholder,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_NODES,
  type CompileConditionOptions,
  type Condition,
  type ConditionType,
  type ResolveValue,
} from './conditions/index.js';
export {
  compileGroup,
  GROUP_OPERATION_TABLE,
  GROUP_OPERATIONS,
  groupRows,
  MAX_GROUP_BY_FIELDS,
  MAX_GROUP_FUNCTIONS,
  MISSING_GROUP_VALUE,
  type GroupFunction,
  type GroupOperation,
  type GroupOperationName,
  type GroupSpec,
} from './group/index.js';
export {
  compilePathPattern,
  HTTP_METHODS,
  matchRoute,
  MAX_ROUTE_PATH_LENGTH,
  MAX_ROUTE_SEGMENTS,
  mergeRouteParams,
  parseHttpMethod,
  type HttpMethod,
  type PathPattern,
  type PatternSegment,
  type RouteCandidate,
  type RouteMatch,
} from './path-routes.js';
