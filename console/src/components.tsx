/** Small pieces every page uses: the error box (message and request id), loading and empty states. */
import { ApiError } from './api.js';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof ApiError ? error.requestId : undefined;
  const status = error instanceof ApiError && error.status ? ` (${error.status})` : '';
  return (
    <div class="error" role="alert">
      <strong>Error{status}:</strong> {message}
      {requestId && (
        <div class="request-id">
          request_id: <code>{requestId}</code>
        </div>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}
