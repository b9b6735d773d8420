/**
 * VectorSearch: the working records become the nearest neighbours of
 * `query_vector` (at most `limit`, similarity at least `threshold`), each
 * with its `_score`. Rust's `{query_vector, options}` form names the
 * collection inside `options` (see shared/search-step.ts).
 */
import { compileSearch, runSearchStep, type SearchConfig } from '../shared/search-step.js';
import { step } from '../step.js';

export const vectorSearch = step<SearchConfig>({
  type: 'VectorSearch',
  access: 'read',
  compile: (m) => compileSearch(m, [
    { body: 'vector', names: ['query_vector', 'vector', 'vector_query'], required: true },
    { body: 'limit', names: 'limit' },
    { body: 'vector_threshold', names: ['threshold', 'vector_threshold'] },
    { body: 'vector_field', names: 'vector_field' },
    { body: 'filters', names: ['filters', 'filter'] },
  ]),
  run: runSearchStep,
});
