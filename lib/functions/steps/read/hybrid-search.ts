/**
 * HybridSearch: text and vector scores blended (the search route's fusion)
 * when `query_vector` is given, a text search when it is absent, null or
 * empty (Go always sends it). Rust spells the members `text_query` and
 * `vector_query` and may put the rest in `options`.
 */
import { compileSearch, runSearchStep, type SearchConfig } from '../shared/search-step.js';
import { step } from '../step.js';

export const hybridSearch = step<SearchConfig>({
  type: 'HybridSearch',
  access: 'read',
  compile: (m) => compileSearch(m, [
    { body: 'query', names: ['query_text', 'text_query', 'query'], required: true },
    { body: 'vector', names: ['query_vector', 'vector_query', 'vector'] },
    { body: 'limit', names: 'limit' },
    { body: 'fields', names: 'fields' },
    { body: 'text_weight', names: 'text_weight' },
    { body: 'vector_weight', names: 'vector_weight' },
    { body: 'vector_field', names: 'vector_field' },
    { body: 'filters', names: ['filters', 'filter'] },
  ]),
  run: runSearchStep,
});
