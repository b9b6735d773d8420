/**
 * Merging another session into the one on screen (POST /api/chat/merge with this one as the target). The choice
 * is among the 50 most recent sessions; older ones are merged from the sessions list.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { NOT_ALLOWED } from '../access.js';
import { useApi } from '../hooks.js';
import { ErrorBox } from '../components.js';
import { MERGE_STRATEGIES, sessionName, type ChatSession } from './chat-data.js';

export function MergeInto({
  target,
  canWrite,
  onMerged,
}: {
  target: ChatSession;
  canWrite: boolean;
  onMerged: () => void;
}) {
  const recent = useApi<{ sessions: ChatSession[] }>('/api/chat?limit=50&sort=desc');
  const others = (recent.data?.sessions ?? []).filter((s) => s.chat_id !== target.chat_id);
  const [source, setSource] = useState('');
  const [strategy, setStrategy] = useState<string>('Chronological');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');

  const merge = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone('');
    try {
      await api('POST', '/api/chat/merge', {
        source_chat_ids: [source],
        target_chat_id: target.chat_id,
        merge_strategy: strategy,
      });
      const from = others.find((s) => s.chat_id === source);
      setDone(`Merged ${from ? sessionName(from) : source} into this session.`);
      onMerged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card chat-merge-into" onSubmit={(e) => void merge(e)} aria-labelledby="merge-into-heading">
      <h2 id="merge-into-heading" class="small">
        Merge another session into this one
      </h2>
      <div class="row">
        <label>
          Session{' '}
          <select id="merge-source" value={source} onChange={(e) => setSource(e.currentTarget.value)}>
            <option value="">Choose…</option>
            {others.map((s) => (
              <option key={s.chat_id} value={s.chat_id}>
                {sessionName(s)} ({s.message_count} messages)
              </option>
            ))}
          </select>
        </label>
        <label>
          Strategy{' '}
          <select id="merge-into-strategy" value={strategy} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {MERGE_STRATEGIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!canWrite || !source || busy} title={canWrite ? undefined : NOT_ALLOWED}>
          {busy ? 'Merging…' : 'Merge into this session'}
        </button>
      </div>
      {done && (
        <p class="muted" role="status">
          {done}
        </p>
      )}
      <ErrorBox error={error ?? recent.error} />
    </form>
  );
}
