/**
 * Public surface of the query core: parse a find body, run it over records,
 * and project the results. Pure functions only; no engine state, no I/O.
 */
export { MAX_FILTER_DEPTH } from '../input/limits.js';
export { parseFilter, type Filter, type ConditionFilter, type LogicalFilter, type NotFilter } from './filter.js';
export { OPERATORS, isOperator, type Operator } from './operators.js';
export { getPath, matchFilter, matcherOf, type Matcher } from './match.js';
export { parseSort, sortRecords, sortInSlices, SortedRows, type SortKey } from './sort.js';
export { CollectionScan, ListSource, withScan, SCAN_CHECK_EVERY, type RecordSource } from './collection-scan.js';
export { applyProjection, compileProjection, parseFieldList, projectFields, type Projection } from './project.js';
export { ValueSet } from './value-set.js';
export { parseFieldPath } from './field-path.js';
export { parseQuery, parseJoin, runQuery, runQueryInSlices, QUERY_KEYS, type Query, type Join } from './query.js';
