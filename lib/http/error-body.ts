/**
 * Renders errors in the two wire formats of product.md: `{error}` (with
 * `details` and extra members when present) for most 4xx, and
 * `{code, message}` for 401, 405, 429 and 5xx. Internal errors get a
 * generic message plus the request id; the stack goes to the log.
 */
import { toDbError, type DbError } from '../errors.js';

const CODE_MESSAGE_STATUSES = new Set([401, 405, 429]);

export interface ErrorResponse { status: number; body: Record<string, unknown>; headers: Record<string, string> }

export function renderError(err: unknown, requestId: string): ErrorResponse {
  const e: DbError = toDbError(err);
  const status = e.status;
  const headers = { ...(e.headers ?? {}) };
  // A few bodies are fixed by the protocol (the 503 batch overload body); they carry their own `error`.
  if (e.extra && 'error' in e.extra) return { status, body: { ...e.extra }, headers };
  if (status >= 500 || CODE_MESSAGE_STATUSES.has(status)) {
    const message = e.code === 'INTERNAL' ? `Internal server error (request ${requestId})` : e.message;
    const body: Record<string, unknown> = { code: status, message };
    if (status === 401) body.error = message;
    return { status, body: { ...body, ...(e.extra ?? {}) }, headers };
  }
  const body: Record<string, unknown> = { error: e.message };
  if (e.details !== undefined) body.details = e.details;
  return { status, body: { ...body, ...(e.extra ?? {}) }, headers };
}
