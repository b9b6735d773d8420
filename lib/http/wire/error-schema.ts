/**
 * The error body of error-body.ts as JSON Schema, for the OpenAPI document:
 * `{error, details?}` (most 4xx, with the typed failures' own members),
 * `{code, message}` (401 also with `error`; 405, 429, 5xx), and a function
 * step's failure `{error: true, operation_index, operation_type, message,
 * details}`. Members beyond these are allowed: a client reads the ones it
 * knows.
 */
import Type from 'typebox';

/** In every error answer over HTTP (not in a stream's error event). */
const RequestId = Type.Optional(
  Type.String({ description: 'The request id (the X-Request-Id header of the answer), which its log lines name.' }),
);

const FailureMessage = Type.Object(
  {
    error: Type.String({ description: 'What failed and, where it can, what to do.' }),
    request_id: RequestId,
    details: Type.Optional(
      Type.Unknown({ description: 'Schema violations: [{field, constraint, expected, actual, message}].' }),
    ),
    active_operations: Type.Optional(Type.Integer({ description: 'Overloaded: batches running.' })),
    max_concurrent: Type.Optional(Type.Integer({ description: 'Overloaded: batches allowed at once.' })),
    retry_after_seconds: Type.Optional(Type.Integer({ description: 'Overloaded: when to retry.' })),
    transaction_id: Type.Optional(Type.String({ description: 'Transaction conflict: the transaction.' })),
    conflicts: Type.Optional(Type.Array(Type.Unknown(), { description: 'Transaction conflict: the records.' })),
    retryable: Type.Optional(Type.Boolean()),
    current_status: Type.Optional(Type.String({ description: 'Invalid lifecycle move: the current status.' })),
    allowed_actions: Type.Optional(Type.Array(Type.String(), { description: 'Invalid lifecycle move.' })),
    action: Type.Optional(Type.String({ description: 'Invalid lifecycle move: the action refused.' })),
    error_kind: Type.Optional(Type.String({ description: 'Provider failure: its class (rate_limited, auth...).' })),
    provider: Type.Optional(Type.String({ description: 'Provider failure: the provider.' })),
    provider_status: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: "Provider failure: the vendor's status." }),
    ),
    retry_after_secs: Type.Optional(Type.Number({ description: 'Provider failure: when to retry.' })),
  },
  { title: 'FailureMessage', description: '4xx: the message, with the members of typed failures.' },
);

const FailureCode = Type.Object(
  {
    code: Type.Integer({ description: 'The HTTP status.' }),
    message: Type.String({ description: 'What failed; for an internal error, the request id to quote.' }),
    error: Type.Optional(Type.String({ description: '401: the message again.' })),
    request_id: RequestId,
  },
  { title: 'FailureCode', description: '401, 405, 429 and 5xx.' },
);

const StepFailure = Type.Object(
  {
    error: Type.Literal(true),
    operation_index: Type.Integer({ description: 'The failed step of the function.' }),
    operation_type: Type.String({ description: 'Its step type.' }),
    message: Type.String(),
    details: Type.Unknown(),
    request_id: RequestId,
  },
  { title: 'StepFailure', description: 'A stored function whose step failed.' },
);

/** Any error answer's body (and the data of an SSE `error` event). */
export const ERROR_BODY_SCHEMA = Type.Union([FailureMessage, FailureCode, StepFailure], {
  title: 'Error',
  description: 'An error answer: always JSON, whatever the Accept header asked for.',
});
