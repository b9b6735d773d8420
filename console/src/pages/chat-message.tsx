/**
 * One message of a conversation: who said it, the text, the context snippets it was answered with (each linked to
 * its record), and the branch action that starts a new session from this point.
 */
import { enc } from '../api.js';
import { NOT_ALLOWED } from '../access.js';
import { shortTime, snippetId, type ChatMessage, type Snippet } from './chat-data.js';

const ROLE_LABEL: Record<string, string> = { user: 'You', assistant: 'Assistant', system: 'System', tool: 'Tool' };

function preview(record: Record<string, unknown>): string {
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => k !== 'id'));
  const text = JSON.stringify(rest);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

export function Snippets({ snippets }: { snippets: Snippet[] }) {
  if (snippets.length === 0) return null;
  return (
    <details class="chat-snippets" open data-testid="snippets">
      <summary>
        Context: {snippets.length} record{snippets.length === 1 ? '' : 's'}
      </summary>
      <ul>
        {snippets.map((s, i) => {
          const id = snippetId(s);
          return (
            <li key={`${s.collection}/${id ?? i}`} data-collection={s.collection}>
              <span class="type">{s.collection}</span>{' '}
              {id !== undefined ? (
                <a href={`/collections/${enc(s.collection)}/records/${enc(id)}`}>{id}</a>
              ) : (
                <span class="muted">(no id)</span>
              )}
              {typeof s.score === 'number' && <span class="muted small"> score {s.score.toFixed(2)}</span>}
              <div class="chat-snippet-text small">{preview(s.record ?? {})}</div>
            </li>
          );
        })}
      </ul>
    </details>
  );
}

export function MessageItem({
  message,
  index,
  canBranch,
  branching,
  onBranch,
}: {
  message: ChatMessage;
  /** The message's place in the whole conversation (what branch_point_idx counts). */
  index: number;
  canBranch: boolean;
  branching: boolean;
  onBranch: (index: number) => void;
}) {
  const who = message.summary ? 'Summary' : (ROLE_LABEL[message.role] ?? message.role);
  return (
    <li
      class={`chat-msg ${message.role}${message.forgotten ? ' forgotten' : ''}`}
      data-role={message.role}
      data-index={index}
    >
      <div class="chat-msg-head">
        <strong>{who}</strong>
        {message.llm_model && <span class="muted small">{message.llm_model}</span>}
        <time class="muted small" dateTime={message.created_at}>
          {shortTime(message.created_at)}
        </time>
        {message.forgotten && <span class="type">forgotten</span>}
        <button
          type="button"
          class="link chat-branch"
          disabled={!canBranch || branching}
          title={canBranch ? 'A new session with the messages up to this one' : NOT_ALLOWED}
          aria-label={`Branch from here, message ${index + 1}`}
          onClick={() => onBranch(index)}
        >
          Branch from here
        </button>
      </div>
      <div class="chat-content">{message.content}</div>
      <Snippets snippets={message.context_snippets} />
    </li>
  );
}

/** The exchange being streamed: the message sent and the reply as it arrives. */
export function PendingExchange({
  question,
  answer,
  snippets,
  streaming,
}: {
  question: string;
  answer: string;
  snippets: Snippet[];
  streaming: boolean;
}) {
  return (
    <>
      <li class="chat-msg user" data-role="user">
        <div class="chat-msg-head">
          <strong>You</strong>
        </div>
        <div class="chat-content">{question}</div>
      </li>
      <li class="chat-msg assistant pending" data-role="assistant" aria-busy={streaming}>
        <div class="chat-msg-head">
          <strong>Assistant</strong>
          {streaming && <span class="muted small">streaming…</span>}
        </div>
        <div class="chat-content" data-testid="streaming-answer">
          {answer}
          {streaming && <span class="chat-caret" aria-hidden="true" />}
        </div>
        <Snippets snippets={snippets} />
      </li>
    </>
  );
}
