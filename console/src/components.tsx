/**
 * Small pieces every page uses: the error box (message and request id), loading state, a confirming button and a
 * JSON editor that shows problems at the member they name.
 */
import { useRef, useState } from 'preact/hooks';
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

/** A button that asks first, in a modal dialog (Escape or Cancel closes it without acting). */
export function ConfirmButton({
  label,
  question,
  confirmLabel = label,
  onConfirm,
  disabled,
  title,
  danger = true,
}: {
  label: string;
  question: string;
  confirmLabel?: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
  /** Why the button is disabled, when it is. */
  title?: string;
  danger?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button
        type="button"
        class={danger ? 'danger' : 'secondary'}
        disabled={disabled}
        title={title}
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={dialog} class="confirm" aria-label={label}>
        <p>{question}</p>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class={danger ? 'danger' : undefined} disabled={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Where a JSON text fails to parse: the message and its 1-based line, when the engine says the position. */
export function jsonProblem(text: string): { message: string; line?: number } | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : undefined;
    return { message, line };
  }
}

/** The line (1-based) where a top-level member is written in a JSON text, to point an error at it. */
export function lineOfMember(text: string, member: string): number | undefined {
  const i = text.indexOf(`${JSON.stringify(member)}:`);
  return i < 0 ? undefined : text.slice(0, i).split('\n').length;
}

/**
 * A JSON text editor: a monospace text area that says where the text stops being JSON, and lists problems the
 * server found at the members they name (`errors`: member name to message).
 */
export function JsonEditor({
  id,
  label,
  value,
  onInput,
  errors = {},
  rows = 14,
  readOnly,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (text: string) => void;
  errors?: Record<string, string>;
  rows?: number;
  readOnly?: boolean;
}) {
  const problem = jsonProblem(value);
  const messages = Object.entries(errors);
  const describedBy = problem || messages.length ? `${id}-problems` : undefined;
  return (
    <div class="json-editor">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        spellcheck={false}
        readOnly={readOnly}
        aria-invalid={problem || messages.length ? true : undefined}
        aria-describedby={describedBy}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {describedBy && (
        // The alert role sits on a wrapper: on the list itself it would take away the items' list semantics.
        <div id={describedBy} role="alert">
          <ul class="field-errors">
            {problem && (
              <li>
                Not JSON{problem.line ? ` (line ${problem.line})` : ''}: {problem.message}
              </li>
            )}
            {messages.map(([member, message]) => {
              const line = lineOfMember(value, member);
              return (
                <li key={member} data-field={member}>
                  <code>{member}</code>
                  {line ? ` (line ${line})` : ''}: {message}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
