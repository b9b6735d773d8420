/**
 * Mocha root hooks (.mocharc.json requires this file): one EddyDB test server for the mocha process, seeded
 * from test/fixtures, and put back to that seed after every test.
 */
import { fileURLToPath } from 'node:url';
import { startTestServer } from 'eddydb/testing';

let server;

/** The test server of this run, for the specs. */
export const eddy = () => server;

export const mochaHooks = {
  async beforeAll() {
    server = await startTestServer({ seed: fileURLToPath(new URL('fixtures', import.meta.url)) });
  },
  async afterEach() {
    await server.reset();
  },
  async afterAll() {
    await server.close();
  },
};
