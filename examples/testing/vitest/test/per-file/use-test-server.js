/**
 * Per-file setup: a test file that calls useTestServer() gets an EddyDB test server of its own, started
 * before its first test, reset after each test and closed after its last. Files run in parallel workers and
 * share nothing. The answer holds `eddy` (the test server) and `client` (the official ekoDB client on it),
 * set before the first test runs.
 */
import { EkoDBClient } from '@ekodb/ekodb-client';
import { startTestServer } from 'eddydb/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';

export function useTestServer(options) {
  const context = {};
  beforeAll(async () => {
    context.eddy = await startTestServer(options);
    context.client = new EkoDBClient({ baseURL: context.eddy.url, apiKey: context.eddy.adminKey });
    await context.client.init();
  });
  afterEach(() => context.eddy.reset());
  afterAll(() => context.eddy?.close());
  return context;
}
