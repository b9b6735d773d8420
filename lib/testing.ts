/**
 * `eddydb/testing`: EddyDB as a test fixture. `startTestServer()` starts an
 * in-process, memory-only server on an ephemeral port, with fixtures, a
 * clock the test moves, and a reset that costs what the test changed.
 * docs/testing.md shows it with mocha, vitest and jest.
 */
export * from './testing/index.js';
