/**
 * Two ways to give tests an EddyDB server, as two projects of one run:
 * - per-file: each test file starts its own server (test/per-file/use-test-server.js) and resets it after
 *   each test; files run in parallel workers and share nothing.
 * - shared: one server for the whole run, started by a globalSetup whose URL and admin key the files inject.
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
        },
      },
    ],
  },
});
