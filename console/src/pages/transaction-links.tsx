/**
 * The transactions page's URL (the selected transaction `tx`, the audit filter `audit_tx`, its `page` and `size`)
 * and a transaction id as shown in its tables: the first 8 characters, the whole id in the title.
 */

/** /transactions with some parameters of `query` changed (undefined or '' removes one). */
export function transactionsHref(query: URLSearchParams, patch: Record<string, string | undefined>): string {
  const q = new URLSearchParams(query);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || v === '') q.delete(k);
    else q.set(k, v);
  }
  const text = q.toString();
  return text ? `/transactions?${text}` : '/transactions';
}

/** A transaction id, shortened (ids are UUIDs: 8 characters tell them apart on one page). */
export function ShortId({ id }: { id: string }) {
  return <code title={id}>{id.length > 12 ? `${id.slice(0, 8)}…` : id}</code>;
}
