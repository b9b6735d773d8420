/**
 * One EddyDB test server for the whole run: test/global-setup.js starts it and hands its URL and admin key
 * to the test files (in their workers) through process.env; test/global-teardown.js closes it. Native ES
 * modules (hence `node --experimental-vm-modules` in the test script), no transform.
 */
export default {
  testEnvironment: 'node',
  transform: {},
  globalSetup: './test/global-setup.js',
  globalTeardown: './test/global-teardown.js',
};
