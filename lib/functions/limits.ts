/**
 * Bounds of stored functions (issue 11 item 6). Constants rather than
 * settings: they protect the server, not a tenant's taste. Documented in
 * README ("Stored functions") and ARCHITECTURE.md.
 */

/** Steps in one definition, nested ones included (save time). */
export const MAX_DEFINITION_STEPS = 2_000;
/** Nesting of step lists (If inside ForEach inside TryCatch...) in one definition (save time). */
export const MAX_STEP_NESTING = 32;
/** Steps executed by one call, nested calls, loop bodies and branches included. */
export const MAX_STEPS_EXECUTED = 100_000;
/** Working records held by one step list at a time (a step producing more fails). */
export const MAX_WORKING_RECORDS = 200_000;
/** Wall time of one call, Sleep included. */
export const MAX_CALL_MS = 30_000;
/** Branches one Parallel step runs at once. */
export const MAX_PARALLEL_BRANCHES = 64;
/** Yield to the event loop after this many steps, so a long call never starves other requests. */
export const YIELD_EVERY_STEPS = 64;
