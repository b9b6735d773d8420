/**
 * Public surface of the query core: parse a find body, run it over records,
 * and project the results. Pure functions only; no engine state, no I/O.
 */
export { parseFilter, MAX_FILTER_DEPTH, type Filter, type ConditionFilter, type LogicalFilter, type NotFilter } from './filter.js';
export { OPERATORS, isOperator, type Operator } from './operators.js';
export { getPath, matchFilter } from './match.js';
export { parseSort, sortRecords, type SortKey } from './sort.js';
export { parseFieldList, projectFields } from './project.js';
export { parseFieldPath } from './field-path.js';
export { parseQuery, parseJoin, runQuery, QUERY_KEYS, type Query, type Join } from './query.js';
