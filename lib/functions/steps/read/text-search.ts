/** TextSearch: the working records become the best text matches of `query_text` (BM25), each with its `_score`. */
import { compileSearch, runSearchStep, type SearchConfig } from '../shared/search-step.js';
import { step } from '../step.js';

export const textSearch = step<SearchConfig>({
  type: 'TextSearch',
  access: 'read',
  compile: (m) => compileSearch(m, [
    { body: 'query', names: ['query_text', 'query', 'text_query'], required: true },
    { body: 'fields', names: 'fields' },
    { body: 'limit', names: 'limit' },
    { body: 'fuzzy', names: 'fuzzy' },
    { body: 'min_score', names: 'min_score' },
    { body: 'filters', names: ['filters', 'filter'] },
  ]),
  run: runSearchStep,
});
