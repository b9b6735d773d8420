/**
 * A JSON text editor with line numbers that can mark lines (the lines of a step the server refused) and move the
 * caret to a span. Like JsonEditor in components.tsx, it says where the text stops being JSON.
 */
import type { Ref } from 'preact';
import { useRef } from 'preact/hooks';
import { jsonProblem } from './components.js';
import type { Span } from './json-paths.js';
import './line-editor.css';

export interface LineMarks {
  /** First and last marked line (1-based, inclusive). */
  from: number;
  to: number;
  /** The one line to mark strongly (where the named member is). */
  focus?: number;
}

export function LineJsonEditor({
  id,
  label,
  value,
  onInput,
  marks,
  rows,
  readOnly,
  describedBy,
  textareaRef,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (text: string) => void;
  marks?: LineMarks;
  /** Visible lines; by default as many as the text has, between 12 and 32. */
  rows?: number;
  readOnly?: boolean;
  /** Ids of elements that explain a problem with the text (an error beside the editor). */
  describedBy?: string;
  textareaRef?: Ref<HTMLTextAreaElement>;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  const problem = jsonProblem(value);
  const lineCount = value.split('\n').length;
  const problemId = `${id}-not-json`;
  const described = [problem ? problemId : undefined, describedBy].filter(Boolean).join(' ') || undefined;
  return (
    <div class="json-editor line-editor">
      <label for={id}>{label}</label>
      <div class="line-editor-body">
        <div class={`gutter${lineCount >= 1000 ? ' wide' : ''}`} ref={gutter} aria-hidden="true">
          {Array.from({ length: lineCount }, (_, k) => {
            const line = k + 1;
            const marked = marks && line >= marks.from && line <= marks.to;
            const cls = marks?.focus === line ? 'marked focus' : marked ? 'marked' : undefined;
            return (
              <div key={line} class={cls}>
                {line}
              </div>
            );
          })}
        </div>
        <textarea
          id={id}
          ref={textareaRef}
          rows={rows ?? Math.min(32, Math.max(12, lineCount + 1))}
          wrap="off"
          spellcheck={false}
          readOnly={readOnly}
          aria-invalid={problem || marks ? true : undefined}
          aria-describedby={described}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
        />
      </div>
      {problem && (
        <p id={problemId} class="field-errors" role="alert">
          Not JSON{problem.line ? ` (line ${problem.line})` : ''}: {problem.message}
        </p>
      )}
    </div>
  );
}

/** Focuses the text area with `span` selected and scrolled into view. */
export function showSpan(textarea: HTMLTextAreaElement, span: Span): void {
  textarea.focus();
  textarea.setSelectionRange(span.start, span.end);
  scrollToSpan(textarea, span);
}

/** Scrolls the text area (not the page) so that `span` starts a few lines below its top; the focus stays put. */
export function scrollToSpan(textarea: HTMLTextAreaElement, span: Span): void {
  const line = textarea.value.slice(0, span.start).split('\n').length;
  const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 18;
  textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
  textarea.dispatchEvent(new Event('scroll'));
}
