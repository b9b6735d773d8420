/**
 * The writers of the kill -9 specs: 16 concurrent clients inserting records
 * into `crash` until the server goes away, each keeping what was
 * acknowledged (201); and the check after a restart that every acknowledged
 * record is there, whole, and no stored record is partial.
 */
import { expect } from 'chai';

export const WRITERS = 16;

export interface Acked {
  id: string;
  n: number;
  payload: string;
}

/** Set `done` to stop; `other` keeps the last outcome that was not a 201; `onAck` is called on each. */
export interface WriteStop {
  done: boolean;
  other?: string;
  onAck?: () => void;
}

/** Inserts from WRITERS clients until `stop.done` or the connection fails; resolves with every acknowledged write. */
export async function writeUntilKilled(url: string, token: string, prefix: string, stop: WriteStop): Promise<Acked[]> {
  const acked: Acked[] = [];
  let seq = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      while (!stop.done) {
        const n = seq++;
        const id = `${prefix}-${w}-${n}`;
        const payload = `${id}:` + 'x'.repeat(50 + (n % 200));
        try {
          const r = await fetch(`${url}/api/insert/crash`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ id, n, payload, nested: { a: [n, n + 1], b: { c: id } } }),
          });
          if (r.status === 201) {
            acked.push({ id, n, payload });
            stop.onAck?.();
          } else stop.other = `${r.status} ${(await r.text()).slice(0, 200)}`;
        } catch (err) {
          stop.other ??= String((err as Error).cause ?? err);
          return; // connection refused or reset: the server is gone
        }
      }
    }),
  );
  return acked;
}

/**
 * Every write in `acked` is stored with its payload, and no stored record is partial; resolves with the record count.
 */
export async function verifyAcked(url: string, token: string, acked: readonly Acked[]): Promise<{ count: number }> {
  const r = await fetch(`${url}/api/find/crash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });
  const rows = (await r.json()) as Array<Record<string, { value: unknown }> & { id: string }>;
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const a of acked) {
    const row = byId.get(a.id);
    expect(row, `acknowledged write ${a.id} lost`).to.not.equal(undefined);
    expect(row!.payload!.value).to.equal(a.payload);
  }
  for (const row of rows) {
    // No partial records: every stored record has every field it was written with.
    expect(row.payload?.value, `partial record ${row.id}`).to.be.a('string');
    expect((row.payload!.value as string).startsWith(row.id + ':')).to.equal(true);
    expect(row.nested?.value).to.deep.equal({ a: [row.n!.value, (row.n!.value as number) + 1], b: { c: row.id } });
  }
  return { count: rows.length };
}
