/**
 * The definition editor: a line-numbered JSON editor and, beside it, what the server said when it refused a save.
 * A refused definition's error names the path of the bad member (`functions[1].then_functions[0]: unknown step
 * type 'Qurey'`); the editor marks that step's lines, the member's line strongly, and links the path to them.
 */
import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox, jsonProblem } from '../components.js';
import { lineAt, locate, splitPathMessage, stepPathOf, type Span } from '../json-paths.js';
import { LineJsonEditor, scrollToSpan, showSpan, type LineMarks } from '../line-editor.js';
import { DEFINITION_MEMBERS, stepsOf, type StepEntry } from './function-model.js';
import './functions.css';

/** Where a refused save points in the text. */
interface PathError {
  path: string;
  message: string;
  requestId: string | undefined;
  /** The innermost step the path is in, when it is in one. */
  step?: StepEntry;
  memberSpan?: Span;
  stepSpan?: Span;
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The path the server names in a refused save's `details`, else the one its message starts with. */
function refusedPath(error: ApiError, text: string): { path: string; message: string } | undefined {
  const details = error.details as { path?: unknown; message?: unknown } | undefined;
  if (typeof details?.path === 'string' && typeof details.message === 'string')
    return { path: details.path, message: details.message };
  const parsed = parsedOrUndefined(text);
  const roots = [...DEFINITION_MEMBERS, ...(parsed && typeof parsed === 'object' ? Object.keys(parsed) : [])];
  return splitPathMessage(error.message, roots);
}

/** Finds the path a refused save names (and its step) in the text. */
function pathErrorOf(error: unknown, text: string, steps: StepEntry[]): PathError | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const split = refusedPath(error, text);
  if (!split) return undefined;
  const stepPath = stepPathOf(split.path);
  return {
    ...split,
    requestId: error.requestId,
    step: steps.find((s) => s.path === stepPath),
    memberSpan: locate(text, split.path)?.span,
    stepSpan: stepPath ? locate(text, stepPath)?.span : undefined,
  };
}

export function DefinitionEditor({
  id,
  initialText,
  save,
  saveLabel,
  disabledReason,
}: {
  id: string;
  initialText: string;
  /** Sends the definition; a rejection is shown beside the editor. */
  save: (definition: unknown) => Promise<void>;
  saveLabel: string;
  /** Why saving is not allowed for this key, when it is not. */
  disabledReason?: string;
}) {
  const [text, setText] = useState(initialText);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const steps = useMemo(() => stepsOf(parsedOrUndefined(text)), [text]);
  const pathError = useMemo(() => pathErrorOf(error, text, steps), [error, text, steps]);
  const notJson = jsonProblem(text) !== undefined;
  const changed = text !== initialText;

  // A new refusal brings the step it names into the editor's view.
  useEffect(() => {
    const span = pathError?.stepSpan ?? pathError?.memberSpan;
    if (span && textarea.current) scrollToSpan(textarea.current, span);
  }, [error]);

  const marks: LineMarks | undefined = pathError && markedLines(text, pathError);
  const goTo = (span: Span | undefined) => {
    if (span && textarea.current) showSpan(textarea.current, span);
  };
  const onSave = async (e: Event) => {
    e.preventDefault();
    if (notJson || disabledReason) return;
    setSaving(true);
    setError(null);
    try {
      await save(JSON.parse(text));
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="fn-editor" onSubmit={(e) => void onSave(e)} aria-busy={saving}>
      <div class="fn-editor-main">
        <LineJsonEditor
          id={id}
          label="Definition (JSON)"
          value={text}
          onInput={setText}
          marks={marks}
          readOnly={disabledReason !== undefined}
          describedBy={pathError ? `${id}-refused` : undefined}
          textareaRef={textarea}
        />
        <div class="actions">
          <button type="submit" disabled={saving || notJson || disabledReason !== undefined} title={disabledReason}>
            {saving ? 'Saving…' : saveLabel}
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!changed || disabledReason !== undefined}
            onClick={() => {
              setText(initialText);
              setError(null);
            }}
          >
            Discard changes
          </button>
          {disabledReason && <span class="muted">{disabledReason}</span>}
        </div>
      </div>
      <aside class="fn-editor-side" aria-label="Save errors and steps">
        {pathError ? (
          <RefusedAt id={`${id}-refused`} error={pathError} text={text} goTo={goTo} />
        ) : (
          <ErrorBox error={error} />
        )}
        <StepOutline steps={steps} text={text} refused={pathError?.step?.path} goTo={goTo} />
      </aside>
    </form>
  );
}

/** The step's lines, and the member's line as the focus. */
function markedLines(text: string, error: PathError): LineMarks | undefined {
  const span = error.stepSpan ?? error.memberSpan;
  if (!span) return undefined;
  const focus = error.memberSpan ? lineAt(text, error.memberSpan.start) : undefined;
  return { from: lineAt(text, span.start), to: lineAt(text, span.end), focus };
}

function RefusedAt({
  id,
  error,
  text,
  goTo,
}: {
  id: string;
  error: PathError;
  text: string;
  goTo: (span: Span | undefined) => void;
}) {
  const span = error.memberSpan ?? error.stepSpan;
  const line = span ? lineAt(text, span.start) : undefined;
  return (
    <div id={id} class="refused" role="alert" data-testid="refused">
      <h2 class="small">The server refused this definition</h2>
      <p class="refused-path">
        at{' '}
        {line ? (
          <button type="button" class="link path" data-testid="refused-path" onClick={() => goTo(span)}>
            <PathText path={error.path} />
            <span class="refused-line"> (line {line})</span>
          </button>
        ) : (
          <PathText path={error.path} testId="refused-path" />
        )}
      </p>
      {error.step && (
        <p class="muted small">
          in the step <code>{error.step.type}</code>
          {error.step.path !== error.path && (
            <>
              {' '}
              at <code>{error.step.path}</code>
            </>
          )}
        </p>
      )}
      <p class="refused-message" data-testid="refused-message">
        {error.message}
      </p>
      {error.requestId && (
        <p class="request-id">
          request_id: <code>{error.requestId}</code>
        </p>
      )}
    </div>
  );
}

/** A path that may break after each dot on a narrow screen. */
function PathText({ path, testId }: { path: string; testId?: string }) {
  const parts = path.split('.');
  return (
    <code data-testid={testId}>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && '.'}
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </code>
  );
}

/** The steps in text order, each a button that moves the caret to it; the refused one is marked. */
function StepOutline({
  steps,
  text,
  refused,
  goTo,
}: {
  steps: StepEntry[];
  text: string;
  refused: string | undefined;
  goTo: (span: Span | undefined) => void;
}) {
  if (steps.length === 0) return null;
  return (
    <nav class="step-outline" aria-label="Steps">
      <h2 class="small">Steps ({steps.length})</h2>
      <ol>
        {steps.map((s) => (
          <li key={s.path} class={`depth-${Math.min(s.depth, 6)}${s.path === refused ? ' refused-step' : ''}`}>
            <button
              type="button"
              class="link"
              aria-current={s.path === refused ? 'step' : undefined}
              onClick={() => goTo(locate(text, s.path)?.span)}
            >
              <span class="step-type">{s.type}</span> <code class="muted">{s.path}</code>
            </button>
            {s.path === refused && <span class="visually-hidden"> (refused)</span>}
          </li>
        ))}
      </ol>
    </nav>
  );
}
