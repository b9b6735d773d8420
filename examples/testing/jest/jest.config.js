/**
 * One EddyDB test server for the whole run: test/global-setup.js starts it and hands its URL and admin key
 * to the test files through process.env; test/reset-after-each.js puts it back to its seed by URL after each
 * test; test/global-teardown.js closes it. A reset wipes what any file wrote, so the files run one at a time
 * (maxWorkers: 1). Native ES modules (hence `node --experimental-vm-modules` in the test script), no transform.
 */
export default {
  testEnvironment: 'node',
  transform: {},
  maxWorkers: 1,
  globalSetup: './test/global-setup.js',
  setupFilesAfterEnv: ['./test/reset-after-each.js'],
  globalTeardown: './test/global-teardown.js',
};
