/**
 * Count: an Integer. Without `input_field` it counts the group's records;
 * with one, the records whose field is present and not null (SQL's
 * COUNT(column)).
 */
import type { GroupOperation } from '../group-operation.js';

export const count: GroupOperation<number> = {
  name: 'Count',
  needsInput: false,
  init: () => 0,
  add: (n, value) => (value === undefined || value === null ? n : n + 1),
  result: (n) => n,
};
