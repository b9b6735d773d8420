/**
 * Jest globalSetup: starts one EddyDB test server before any test file. The handle stays on globalThis for
 * the teardown (which runs in this same process); the test files, each in an environment of its own, get
 * the URL and admin key through process.env, and reset the server and move its clock by URL.
 */
import { startTestServer } from 'eddydb/testing';

export default async function globalSetup() {
  const eddy = await startTestServer({
    seed: {
      collections: {
        products: [
          { name: 'floor lamp', category: 'lighting' },
          { name: 'desk lamp', category: 'lighting' },
          { name: 'notebook', category: 'paper' },
        ],
      },
    },
  });
  globalThis.eddy = eddy;
  process.env.EDDYDB_URL = eddy.url;
  process.env.EDDYDB_ADMIN_KEY = eddy.adminKey;
}
