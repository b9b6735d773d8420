/**
 * Fixed bounds of stored functions, documented with the stored-function
 * reference. The per-call bounds (steps executed, working
 * records, wall time) are settings instead (`function_max_steps`,
 * `function_max_records`, `function_timeout_ms`, PUT /api/config), read at
 * the start of each call.
 */

/** Steps in one definition, nested ones included (save time). */
export const MAX_DEFINITION_STEPS = 2_000;
/** Nesting of step lists (If inside ForEach inside TryCatch...) in one definition (save time). */
export const MAX_STEP_NESTING = 32;
/** Branches one Parallel step runs at once. */
export const MAX_PARALLEL_BRANCHES = 64;
/** Yield to the event loop after this many steps, so a long call never starves other requests. */
export const YIELD_EVERY_STEPS = 64;
