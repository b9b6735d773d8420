/** Public surface of stored functions. Other folders import only from here. */
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
} from './routing/path-routes.js';
