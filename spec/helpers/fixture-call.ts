/** One JSON request to a test server (eddydb/testing) over real HTTP, with an admin token unless one is given. */
import type { TestServer } from '../../lib/testing.js';

export interface FixtureAnswer {
  status: number;
  body: any;
}

export async function fixtureCall(
  t: TestServer,
  method: string,
  url: string,
  body?: unknown,
  token?: string,
): Promise<FixtureAnswer> {
  const res = await fetch(t.url + url, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? (await t.token())}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
