/**
 * The application under test: user accounts, sign-in codes and sessions kept in ekoDB, reached over its
 * HTTP API with fetch. Tests give it a test server's URL and API key; production gives it the real ones.
 */
import { randomInt } from 'node:crypto';

export async function connect({ url, apiKey }) {
  const { token } = await send(url, 'POST', '/api/auth/token', undefined, { api_key: apiKey });
  const call = (method, path, body) => send(url, method, path, token, body);
  const findUser = (email) =>
    call('POST', '/api/find/users', {
      filter: { type: 'Condition', content: { field: 'email', operator: 'Eq', value: email } },
    });

  return {
    /** Signs a user up; the users schema refuses an email already taken. */
    async signUp(email, name) {
      return (await call('POST', '/api/insert/users', { email, name })).id;
    },
    async findByEmail(email) {
      const [user] = await findUser(email);
      return user && plain(user);
    },
    async countUsers() {
      return (await call('POST', '/api/find/users', {})).length;
    },
    /** A one-time sign-in code, valid for 10 minutes. */
    async issueCode(email) {
      const code = String(randomInt(100000, 1000000));
      await call('POST', `/api/kv/set/${encodeURIComponent(`code:${email}`)}`, { value: code, ttl: 600 });
      return code;
    },
    async checkCode(email, code) {
      const stored = await call('GET', `/api/kv/get/${encodeURIComponent(`code:${email}`)}`);
      return stored !== undefined && stored.value.value === code;
    },
    /** A session that lasts 30 minutes. */
    async startSession(userId) {
      return (await call('POST', '/api/insert/sessions', { user: userId, ttl: '30m' })).id;
    },
    /** The user of a live session, or undefined once it has expired. */
    async sessionUser(sessionId) {
      const session = await call('GET', `/api/find/sessions/${sessionId}`);
      return session && plain(session).user;
    },
  };
}

/** One request; a 404 answers undefined, another failure throws with the server's message. */
async function send(url, method, path, token, body) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 404) return undefined;
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${answer.error ?? answer.message}`);
  return answer;
}

/** A record with its typed values ({type, value}) unwrapped. */
function plain(record) {
  return Object.fromEntries(Object.entries(record).map(([key, field]) => [key, field?.value ?? field]));
}
