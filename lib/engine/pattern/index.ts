/**
 * Public surface of user-supplied regular expressions: compile once, match in
 * linear time, refuse what cannot run that way with a sentence saying why.
 */
export {
  compilePattern,
  requirePattern,
  MATCH_WORK_LIMIT,
  MAX_PROGRAM_SIZE,
  PATTERN_CACHE_SIZE,
  type CompiledPattern,
  type Pattern,
} from './pattern.js';
export { MAX_GROUP_DEPTH, MAX_PATTERN_LENGTH, translatePattern, type Translation } from './translate-pattern.js';
