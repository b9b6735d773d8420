/**
 * Two ways to give tests an EddyDB server, as two projects of one run:
 * - per-file: each test file starts its own server (test/per-file/use-test-server.js) and resets it after
 *   each test; files run in parallel workers and share nothing.
 * - shared: one server for the whole run, started by a globalSetup whose URL and admin key the files inject,
 *   and reset by URL after each test (test/shared/reset-after-each.js). A reset wipes what any file wrote,
 *   so this project's files run one at a time.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'per-file', include: ['test/per-file/**/*.test.js'] } },
      {
        test: {
          name: 'shared',
          include: ['test/shared/**/*.test.js'],
          globalSetup: ['test/shared/global-setup.js'],
          setupFiles: ['test/shared/reset-after-each.js'],
          fileParallelism: false,
        },
      },
    ],
  },
});
