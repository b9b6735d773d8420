/**
 * Vitest setupFiles of the shared project: after each test, puts the shared server back to its seed by URL
 * (POST /api/testing/reset with an admin token), since the test files have its URL and admin key, not the
 * server itself. A fresh token each time: a clock moved past a token's lifetime expires a kept one.
 */
import { afterEach, inject } from 'vitest';

export async function resetEddy() {
  const { url, adminKey } = inject('eddy');
  const { token } = await send(url, '/api/auth/token', { api_key: adminKey });
  await send(url, '/api/testing/reset', undefined, token);
}

afterEach(() => resetEddy());

/** One POST; a failure throws with the server's message. */
async function send(url, path, body, token) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${answer.error ?? answer.message}`);
  return answer;
}
