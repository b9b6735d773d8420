/**
 * HttpRequest: one outbound HTTP request (see request-members.ts for the
 * members and outbound/ for the host policy and proxies). Its output field
 * (default `http_response`) gets the response body itself, as the official
 * examples use it (`KvSet` of `"{{http_response}}"` caches the API's
 * object): the parsed JSON, or the text when the answer is not JSON. The
 * status and the headers go beside it, to `<output>_status` and
 * `<output>_headers` (for `http_response`: `http_response_status`,
 * `http_response_headers`). All three are added to every working record (one
 * record when there is none). A non-2xx answer is an answer; a network
 * failure, a timeout, a refused destination or a body over 10 MiB fails the
 * step. The request goes out once per step, with placeholders resolved
 * against the first working record. It reaches outside, so a transactional
 * function refuses it.
 */
import { step } from '../step.js';
import { addToRows, compileRequestMembers, resolveRequest, responseBody, send, type RequestMembers } from './request-members.js';

interface HttpRequestConfig extends RequestMembers {
  readonly output: readonly string[];
  readonly statusOutput: readonly string[];
  readonly headersOutput: readonly string[];
}

/** `path` with `suffix` appended to its last name: `a.b` -> `a.b_status`. */
function besideOutput(path: readonly string[], suffix: string): readonly string[] {
  return [...path.slice(0, -1), `${path[path.length - 1]!}${suffix}`];
}

export const httpRequest = step<HttpRequestConfig>({
  type: 'HttpRequest',
  secretMembers: ['headers'],
  access: 'outside',
  compile: (m) => {
    const output = m.optionalFieldPath('output_field') ?? ['http_response'];
    return { ...compileRequestMembers(m), output, statusOutput: besideOutput(output, '_status'), headersOutput: besideOutput(output, '_headers') };
  },
  run: async (cfg, rows, x) => {
    const res = await send(resolveRequest(cfg, rows[0], x, 'HttpRequest'), x);
    const withBody = addToRows(rows, cfg.output, responseBody(res));
    return addToRows(addToRows(withBody, cfg.statusOutput, res.status), cfg.headersOutput, res.headers);
  },
});
