/**
 * Transactions: the open ones (GET /api/transactions: a key's own, an admin's every one), one transaction's status
 * (GET /api/transactions/{id}), rolling one back, and the audit trail (GET /api/admin/audit, admin only), paged
 * newest first. The selected transaction, the audit filter and its page live in the URL.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api.js';
import { useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { AuditTrail } from './audit-trail.js';
import { ShortId, transactionsHref } from './transaction-links.js';
import './keys.css';
import './transactions.css';

export interface TransactionView {
  transaction_id: string;
  state: 'Active' | 'Expired';
  isolation_level: string;
  operations_count: number;
  savepoints_count: number;
  /** Unix seconds. */
  created_at: number;
  last_activity: number;
  timeout_seconds: number;
}

/** A duration in seconds as "42 s", "3 min 5 s", "2 h 10 min". */
export function duration(secs: number): string {
  const s = Math.max(0, Math.round(secs));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** How often the open transactions and the selected one are asked again. */
const REFRESH_MS = 5000;

/** Calls `reload` every REFRESH_MS while `on`. */
function usePolling(reload: () => void, on = true): void {
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [on]);
}

/** The clock in Unix seconds, ticking every second so that ages count up. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function Transactions({ query }: { query: URLSearchParams }) {
  const access = useAccess();
  const selected = query.get('tx') ?? undefined;
  const open = useApi<{ transactions: TransactionView[]; count: number }>('/api/transactions');
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [auditTick, setAuditTick] = useState(0);
  const now = useNow();
  usePolling(open.reload);

  const rollback = async (id: string) => {
    setError(null);
    setDone(null);
    try {
      const r = await api<{ operations_rolled_back: number }>('POST', `/api/transactions/${enc(id)}/rollback`);
      setDone(`Rolled back ${id}: ${r.operations_rolled_back} staged operation(s) discarded.`);
      if (selected === id) navigate(transactionsHref(query, { tx: undefined }), true);
      open.reload();
      setAuditTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  const rows = open.data ? [...open.data.transactions].sort((a, b) => b.created_at - a.created_at) : undefined;
  return (
    <main id="main" class="transactions">
      <h1>Transactions</h1>
      <section aria-labelledby="open-heading">
        <div class="section-head">
          <h2 class="small" id="open-heading">
            Open transactions{rows ? ` (${rows.length})` : ''}
          </h2>
          <button type="button" class="secondary" onClick={open.reload}>
            Refresh
          </button>
        </div>
        <p class="muted small">
          {access?.admin
            ? 'An admin key sees every key’s open transactions.'
            : 'This key sees the transactions it began (an admin key sees every one).'}{' '}
          Updated every {REFRESH_MS / 1000} s.
        </p>
        <ErrorBox error={open.error} />
        <ErrorBox error={error} />
        <p role="status" class="saved">
          {done ?? ''}
        </p>
        {!rows && !open.error && <Loading what="open transactions" />}
        {rows && rows.length === 0 && <p class="muted">No transaction is open.</p>}
        {rows && rows.length > 0 && (
          <div class="scroll">
            <table class="data stack">
              <thead>
                <tr>
                  <th scope="col">Transaction</th>
                  <th scope="col">Isolation</th>
                  <th scope="col">State</th>
                  <th scope="col" class="num">
                    Age
                  </th>
                  <th scope="col" class="num">
                    Operations
                  </th>
                  <th scope="col" class="num">
                    Savepoints
                  </th>
                  <th scope="col" class="num">
                    Expires in
                  </th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((t) => (
                  <tr key={t.transaction_id} data-transaction={t.transaction_id}>
                    <td data-label="Transaction">
                      <a
                        href={transactionsHref(query, { tx: t.transaction_id })}
                        aria-label={`Status of transaction ${t.transaction_id}`}
                        aria-current={selected === t.transaction_id ? 'true' : undefined}
                      >
                        <ShortId id={t.transaction_id} />
                      </a>
                    </td>
                    <td data-label="Isolation">{t.isolation_level}</td>
                    <td data-label="State">{t.state}</td>
                    <td data-label="Age" class="num">
                      {duration(now - t.created_at)}
                    </td>
                    <td data-label="Operations" class="num">
                      {t.operations_count}
                    </td>
                    <td data-label="Savepoints" class="num">
                      {t.savepoints_count}
                    </td>
                    <td data-label="Expires in" class="num">
                      {duration(t.created_at + t.timeout_seconds - now)}
                    </td>
                    <td data-label="Actions">
                      <ConfirmButton
                        label="Roll back"
                        question={
                          `Roll back transaction ${t.transaction_id}? ` +
                          `Its ${t.operations_count} staged operation(s) are discarded.`
                        }
                        onConfirm={() => rollback(t.transaction_id)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {selected && (
        <TransactionStatus key={selected} id={selected} now={now} query={query} onRollback={() => rollback(selected)} />
      )}
      <AuditTrail access={access} query={query} tick={auditTick} />
    </main>
  );
}

/** One transaction's state, asked of the server (it answers 404 once the transaction has ended). */
function TransactionStatus({
  id,
  now,
  query,
  onRollback,
}: {
  id: string;
  now: number;
  query: URLSearchParams;
  onRollback: () => Promise<void>;
}) {
  const status = useApi<TransactionView>(`/api/transactions/${enc(id)}`);
  const t = status.data;
  const ended = status.error instanceof ApiError && status.error.status === 404;
  usePolling(status.reload, !status.error);
  return (
    <section class="card" aria-labelledby="status-heading" data-testid="transaction-status">
      <h2 class="small" id="status-heading">
        Transaction <code>{id}</code>
      </h2>
      {ended ? (
        <p class="muted" data-testid="transaction-ended">
          This transaction is not open: it was committed, rolled back or has expired (or another key began it). Its
          audit trail tells which.
        </p>
      ) : (
        <ErrorBox error={status.error} />
      )}
      {status.loading && !t && <Loading what="the transaction" />}
      {t && (
        <dl class="facts">
          <dt>State</dt>
          <dd class="tx-status">{t.state}</dd>
          <dt>Isolation</dt>
          <dd>{t.isolation_level}</dd>
          <dt>Age</dt>
          <dd>{duration(now - t.created_at)}</dd>
          <dt>Idle for</dt>
          <dd>{duration(now - t.last_activity)}</dd>
          <dt>Expires</dt>
          <dd>
            {duration(t.timeout_seconds)} after it began (in {duration(t.created_at + t.timeout_seconds - now)})
          </dd>
          <dt>Operations</dt>
          <dd data-testid="status-operations">{t.operations_count}</dd>
          <dt>Savepoints</dt>
          <dd>{t.savepoints_count}</dd>
        </dl>
      )}
      <div class="actions tx-actions">
        <button type="button" class="secondary" onClick={status.reload}>
          Refresh
        </button>
        <ConfirmButton
          label="Roll back this transaction"
          question={`Roll back transaction ${id}? Its staged operations are discarded.`}
          confirmLabel="Roll back"
          disabled={!t}
          title={t ? undefined : 'The transaction is not open'}
          onConfirm={onRollback}
        />
        <a class="button" href={transactionsHref(query, { audit_tx: id, page: undefined })}>
          Its audit trail
        </a>
        <a href={transactionsHref(query, { tx: undefined })}>Close</a>
      </div>
    </section>
  );
}
