/**
 * Test control by URL: the test files have the shared server's URL and admin key (process.env), not the
 * server itself, so they reset it and move its clock through its test routes (/api/testing/...). Each call
 * fetches a fresh admin token: a clock moved past a token's lifetime expires a kept one.
 */

/** Puts the server back to the state right after its start and seeding. */
export async function resetEddy() {
  await control('POST', '/api/testing/reset');
}

/** Moves the server's clock: {advance: '10m' or ms}, {set: ISO text or epoch ms}, {freeze: true or false}. */
export async function moveEddyClock(move) {
  return control('POST', '/api/testing/clock', move);
}

/** One admin request; a failure throws with the server's message. */
async function control(method, path, body) {
  const url = process.env.EDDYDB_URL;
  const { token } = await send(url, 'POST', '/api/auth/token', { api_key: process.env.EDDYDB_ADMIN_KEY });
  return send(url, method, path, body, token);
}

async function send(url, method, path, body, token) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${answer.error ?? answer.message}`);
  return answer;
}
