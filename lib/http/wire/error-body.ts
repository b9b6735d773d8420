/**
 * The one error renderer: every failure, on every transport, is shaped here
 * from the error's type and fields (protocol.md §1.5, §3.2; product.md).
 *
 * - HTTP `{status, headers, body}`: `{error}` (with `details`) for most 4xx,
 *   `{code, message}` for 401 (plus `error`), 405, 429 and 5xx. Internal
 *   errors get a generic message plus the request id; the stack goes to the
 *   log. Typed failures have bodies of their own: the batch overload counters,
 *   a transaction conflict's records, an invalid lifecycle move (current
 *   status and allowed actions), a classified provider failure, a
 *   function step failure; rate limits and overloads add `Retry-After`.
 * - SSE: an `event: error` frame whose data is the HTTP body.
 * - WebSocket: `{type: "Error", code: <status>, message, messageId?}`.
 */
import {
  InvalidTransition, Overloaded, ProviderFailed, RateLimited, SlowConsumer, StepFailed, toDbError, TransactionConflict, WsVersionRefused, type DbError,
} from '../../errors.js';

const CODE_MESSAGE_STATUSES = new Set([401, 405, 429]);

export interface ErrorResponse { status: number; body: Record<string, unknown>; headers: Record<string, string> }

export function renderError(err: unknown, requestId: string): ErrorResponse {
  const e: DbError = toDbError(err);
  return { status: e.status, body: errorBody(e, requestId), headers: errorHeaders(e) };
}

/** The data of an SSE `event: error` frame: the HTTP body of the same failure. */
export function sseErrorData(err: unknown, requestId: string): Record<string, unknown> {
  return errorBody(toDbError(err), requestId);
}

/** A WebSocket Error frame; `messageId` is echoed when the request carried one. */
export function wsErrorFrame(err: unknown, requestId: string, messageId?: unknown): Record<string, unknown> {
  const e = toDbError(err);
  const body = errorBody(e, requestId);
  const message = typeof body.error === 'string' ? body.error : String(body.message ?? e.message);
  return { type: 'Error', code: e.status, message, ...(messageId !== undefined ? { messageId } : {}) };
}

function errorBody(e: DbError, requestId: string): Record<string, unknown> {
  const typed = typedBody(e);
  if (typed) return typed;
  const status = e.status;
  if (status >= 500 || CODE_MESSAGE_STATUSES.has(status)) {
    const message = e.code === 'INTERNAL' ? `Internal server error (request ${requestId})` : e.message;
    return status === 401 ? { code: status, message, error: message } : { code: status, message };
  }
  return e.details === undefined ? { error: e.message } : { error: e.message, details: e.details };
}

/** Bodies fixed by the protocol for failures that carry more than a message. */
function typedBody(e: DbError): Record<string, unknown> | undefined {
  if (e instanceof Overloaded) {
    return { error: e.message, active_operations: e.active, max_concurrent: e.max, retry_after_seconds: e.retryAfter };
  }
  if (e instanceof TransactionConflict) {
    return { error: e.message, transaction_id: e.transactionId, conflicts: e.conflicts, retryable: true };
  }
  if (e instanceof InvalidTransition) {
    return { error: e.message, current_status: e.current, allowed_actions: e.allowed, action: e.action };
  }
  if (e instanceof ProviderFailed) return { error: e.message, ...providerFields(e) };
  if (e instanceof StepFailed) {
    // A Chat or Embed step whose provider failed: the classified fields are the failure's details.
    const details = e.details ?? (e.cause instanceof ProviderFailed ? providerFields(e.cause) : null);
    return { error: true, operation_index: e.index, operation_type: e.type, message: e.message, details };
  }
  // Streams that dropped a slow reader say so in the short form their clients read.
  if (e instanceof SlowConsumer) return { error: e.message };
  return undefined;
}

/** The classified provider failure's fields (product.md, "classified provider body"). */
function providerFields(e: ProviderFailed): Record<string, unknown> {
  return {
    error_kind: e.kind, provider: e.provider, provider_status: e.providerStatus,
    ...(e.retryAfterSecs !== undefined ? { retry_after_secs: e.retryAfterSecs } : {}),
  };
}

function errorHeaders(e: DbError): Record<string, string> {
  // A step's own 429 (the RateLimit step, a provider's rate limit) tells clients when to retry, as any 429 does (protocol.md 1.8).
  if (e instanceof StepFailed && (e.cause instanceof RateLimited || e.cause instanceof ProviderFailed)) return errorHeaders(e.cause);
  if (e instanceof RateLimited) {
    const h: Record<string, string> = {};
    if (e.retryAfter !== undefined) h['Retry-After'] = String(e.retryAfter);
    if (e.limit !== undefined) h['X-RateLimit-Limit'] = String(e.limit);
    if (e.remaining !== undefined) h['X-RateLimit-Remaining'] = String(e.remaining);
    if (e.resetAt !== undefined) h['X-RateLimit-Reset'] = String(e.resetAt);
    return h;
  }
  if (e instanceof Overloaded) return { 'Retry-After': String(e.retryAfter) };
  if (e instanceof ProviderFailed && e.retryAfterSecs !== undefined) return { 'Retry-After': String(e.retryAfterSecs) };
  if (e instanceof WsVersionRefused) return { 'Sec-WebSocket-Version': e.supportedVersions };
  return {};
}
