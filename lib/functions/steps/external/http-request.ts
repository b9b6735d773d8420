/**
 * HttpRequest: one outbound HTTP request (see request-members.ts for the
 * members and outbound/ for the host policy and proxies). Its output field
 * (default `http_response`) gets `{status, headers, body}`, added to every
 * working record (one record when there is none): `{{http_response.body}}`
 * is the parsed JSON or the text, `{{http_response.status}}` the status.
 * A non-2xx answer is an answer; a network failure, a timeout, a refused
 * destination or a body over 10 MiB fails the step. The request goes out
 * once per step, with placeholders resolved against the first working
 * record. It reaches outside, so a transactional function refuses it.
 */
import type { Value } from '../../../engine/index.js';
import { step } from '../step.js';
import { addToRows, compileRequestMembers, resolveRequest, responseBody, send, type RequestMembers } from './request-members.js';

interface HttpRequestConfig extends RequestMembers {
  readonly output: readonly string[];
}

export const httpRequest = step<HttpRequestConfig>({
  type: 'HttpRequest',
  secretMembers: ['headers'],
  access: 'outside',
  compile: (m) => ({ ...compileRequestMembers(m), output: m.optionalFieldPath('output_field') ?? ['http_response'] }),
  run: async (cfg, rows, x) => {
    const res = await send(resolveRequest(cfg, rows[0], x, 'HttpRequest'), x);
    const value: Value = { status: res.status, headers: res.headers, body: responseBody(res) };
    return addToRows(rows, cfg.output, value);
  },
});
