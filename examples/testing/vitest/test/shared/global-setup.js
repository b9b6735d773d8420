/**
 * Vitest globalSetup: one EddyDB test server for the whole run, started before the first test file and
 * closed after the last. The files run in workers, so they get its URL and admin key (provide/inject), not
 * the server itself: they share it, one file at a time, and reset it by URL after each test.
 */
import { startTestServer } from 'eddydb/testing';

export default async function setup({ provide }) {
  const eddy = await startTestServer({
    seed: {
      collections: {
        products: [
          { name: 'lamp', price: 25 },
          { name: 'book', price: 12 },
        ],
      },
    },
  });
  provide('eddy', { url: eddy.url, adminKey: eddy.adminKey });
  return () => eddy.close();
}
