/**
 * The transaction audit trail (GET /api/admin/audit, admin only): newest first, filtered by transaction id (the
 * filter the server has), one page at a time. The server pages by `limit` alone (at most 10,000), so page n asks
 * for the newest (n + 1) × size events and shows the last size of them; the trail is never loaded whole.
 */
import { useEffect, useState } from 'preact/hooks';
import { enc } from '../api.js';
import type { Access } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { ShortId, transactionsHref } from './transaction-links.js';

interface AuditEvent {
  timestamp: string;
  event: string;
  transaction_id: string;
  isolation_level?: string;
  operations_count?: number;
  savepoint?: string;
  error?: string;
}

const PAGE_SIZES = [25, 50, 100, 200];
/** The most events the server returns in one answer. */
const SERVER_LIMIT = 10_000;
const ADMIN_ONLY = 'Only an admin key may read the audit trail';

export function AuditTrail({ access, query, tick }: { access: Access | null; query: URLSearchParams; tick: number }) {
  const admin = access?.admin === true;
  const filter = query.get('audit_tx') ?? '';
  const size = PAGE_SIZES.includes(Number(query.get('size'))) ? Number(query.get('size')) : 50;
  const page = Math.min(Math.max(0, Math.floor(Number(query.get('page')) || 0)), SERVER_LIMIT / size - 1);
  const limit = (page + 1) * size;
  const path = `/api/admin/audit?limit=${limit}${filter ? `&transaction_id=${enc(filter)}` : ''}`;
  const audit = useApi<{ events: AuditEvent[]; count: number }>(admin ? path : null);
  const [draft, setDraft] = useState(filter);
  useEffect(() => setDraft(filter), [filter]);
  useEffect(() => {
    if (tick > 0) audit.reload();
  }, [tick]);
  const go = (patch: Record<string, string | undefined>) => navigate(transactionsHref(query, patch));
  const events = audit.data?.events.slice(page * size);
  const more = audit.data !== undefined && audit.data.count === limit && limit + size <= SERVER_LIMIT;
  const reason = access && !admin ? ADMIN_ONLY : undefined;
  return (
    <section aria-labelledby="audit-heading" data-testid="audit">
      <h2 class="small" id="audit-heading">
        Audit trail
      </h2>
      {reason && <p class="notice">{reason}: this key sees its open transactions only.</p>}
      <form
        class="card audit-filter"
        onSubmit={(e) => {
          e.preventDefault();
          go({ audit_tx: draft.trim(), page: undefined });
        }}
      >
        <label>
          Transaction id
          <input
            value={draft}
            disabled={!admin}
            title={reason}
            placeholder="every transaction"
            spellcheck={false}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={!admin} title={reason}>
          Filter
        </button>
        {filter && (
          <button type="button" class="secondary" onClick={() => go({ audit_tx: undefined, page: undefined })}>
            Every transaction
          </button>
        )}
        <button type="button" class="secondary" disabled={!admin} title={reason} onClick={audit.reload}>
          Refresh
        </button>
      </form>
      <ErrorBox error={audit.error} />
      {admin && !events && !audit.error && <Loading what="the audit trail" />}
      {events && events.length === 0 && (
        <p class="muted">{filter ? 'No event for this transaction.' : 'No transaction has been recorded yet.'}</p>
      )}
      {events && events.length > 0 && (
        <div class="scroll">
          <table class="data stack audit">
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Event</th>
                <th scope="col">Transaction</th>
                <th scope="col">Isolation</th>
                <th scope="col" class="num">
                  Operations
                </th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e, i) => (
                <tr key={`${page}-${i}`} data-event={e.event}>
                  <td data-label="Time (UTC)">{e.timestamp.replace('T', ' ').replace('Z', '')}</td>
                  <td data-label="Event">
                    <span class={`event ${e.event}`}>{e.event.replace(/_/g, ' ')}</span>
                  </td>
                  <td data-label="Transaction">
                    <a
                      href={transactionsHref(query, { audit_tx: e.transaction_id, page: undefined })}
                      aria-label={`Audit trail of ${e.transaction_id}`}
                    >
                      <ShortId id={e.transaction_id} />
                    </a>
                  </td>
                  <td data-label="Isolation">{e.isolation_level ?? ''}</td>
                  <td data-label="Operations" class="num">
                    {e.operations_count ?? ''}
                  </td>
                  <td data-label="Detail" class="wrap">
                    {[e.savepoint && `savepoint ${e.savepoint}`, e.error].filter(Boolean).join(' · ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && (
        <div class="pager">
          <button
            type="button"
            class="secondary"
            disabled={page === 0}
            onClick={() => go({ page: page > 1 ? String(page - 1) : undefined })}
          >
            Newer
          </button>
          <span class="muted" data-testid="audit-range">
            {events && events.length ? `${page * size + 1}–${page * size + events.length}` : ''}
          </span>
          <button type="button" class="secondary" disabled={!more} onClick={() => go({ page: String(page + 1) })}>
            Older
          </button>
          <label>
            Per page{' '}
            <select value={String(size)} onChange={(e) => go({ size: e.currentTarget.value, page: undefined })}>
              {PAGE_SIZES.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
        </div>
      )}
    </section>
  );
}
