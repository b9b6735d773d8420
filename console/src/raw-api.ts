/**
 * The API with JSON kept as text both ways, for records whose numbers must stay exact (see json-text.ts). Errors
 * are the same ApiError as api() throws, with the server's message, request id and details.
 */
import { ApiError, getToken, setToken } from './api.js';

export interface Answer {
  status: number;
  text: string;
  requestId?: string;
}

/** Sends `body` (already JSON text) and answers the status and text, whatever the status. */
export async function apiResponse(method: string, path: string, body?: string): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body });
  } catch (err) {
    throw new ApiError(`The server did not answer (${(err as Error).message})`, 0, undefined);
  }
  const text = await res.text();
  if (res.status === 401) setToken(null);
  return { status: res.status, text, requestId: res.headers.get('X-Request-Id') ?? undefined };
}

/** The error a failed answer stands for, with the server's message, request id and details. */
export function errorOf(answer: Answer): ApiError {
  const { status, text } = answer;
  let parsed: { error?: unknown; message?: unknown; request_id?: unknown; details?: unknown } = {};
  try {
    parsed = (JSON.parse(text) as typeof parsed) ?? {};
  } catch {
    // not JSON: the status text says what happened
  }
  const message =
    typeof parsed.error === 'string' ? parsed.error : typeof parsed.message === 'string' ? parsed.message : '';
  const requestId = typeof parsed.request_id === 'string' ? parsed.request_id : answer.requestId;
  return new ApiError(message || `HTTP ${status}`, status, requestId, parsed.details);
}

/** Sends `body` (already JSON text) and answers the response's text; a failure throws ApiError. */
export async function apiText(method: string, path: string, body?: string): Promise<string> {
  const answer = await apiResponse(method, path, body);
  if (answer.status >= 200 && answer.status < 300) return answer.text;
  throw errorOf(answer);
}
