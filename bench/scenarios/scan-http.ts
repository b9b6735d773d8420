/**
 * A filtered scan over HTTP: POST /api/find with a filter no index serves, over 100,000 records of ~200 bytes,
 * one request at a time, so the figure is the latency of a scan and its answer. Two filters: `age Eq 40` (1,667
 * records) and a one-hit `email Eq`. The reference is plain JavaScript over the same records in this process:
 * Array.filter and JSON.stringify of the hits, the least any server does for the same answer. The targets are
 * the stated p50s: 12 ms for the 1,667 hits, 5 ms for the one hit.
 */
import { benchRecord } from '../lib/records.js';
import { percentile, report, timed, type Measurement } from '../lib/report.js';
import { check, startServer, stopEddy } from '../lib/seeded-eddy.js';

const RECORDS = 100_000;
const RUNS = 30;

interface Case {
  name: string;
  filter: { field: string; value: unknown };
  target: string;
}

const CASES: Case[] = [
  { name: 'age Eq 40 (1,667 hits)', filter: { field: 'age', value: 40 }, target: 'p50 <= 12 ms' },
  { name: 'one-hit email Eq', filter: { field: 'email', value: 'user777@example.com' }, target: 'p50 <= 5 ms' },
];

const measured = (label: string, times: number[], extra: Record<string, unknown> = {}): Measurement => ({
  label,
  throughput: 1000 / percentile(times, 50),
  p50_ms: percentile(times, 50),
  p99_ms: percentile(times, 99),
  ...extra,
});

export async function scanHttp(): Promise<void> {
  const records = Array.from({ length: RECORDS }, (_, i) => benchRecord(i));
  const e = await startServer('none');
  try {
    for (let i = 0; i < RECORDS; i += 5000) {
      const inserts = records.slice(i, i + 5000).map((data) => ({ data }));
      await check(
        `${e.url}/api/batch/insert/bench`,
        { method: 'POST', headers: e.headers, body: JSON.stringify({ inserts }) },
        'application/json',
      );
    }
    const rows = [];
    for (const c of CASES) {
      const body = JSON.stringify({
        filter: { type: 'Condition', content: { field: c.filter.field, operator: 'Eq', value: c.filter.value } },
      });
      let answerBytes = 0;
      const ours = await timed(RUNS, async () => {
        const r = await fetch(`${e.url}/api/find/bench`, { method: 'POST', headers: e.headers, body });
        if (!r.ok) throw new Error(`find: ${r.status} ${await r.text()}`);
        answerBytes = (await r.arrayBuffer()).byteLength;
      });
      const plain = await timed(RUNS, () => {
        JSON.stringify(records.filter((r) => r[c.filter.field] === c.filter.value));
      });
      const subject = measured(`eddydb ${c.name}`, ours, { answer_bytes: answerBytes });
      const reference = measured(`Array.filter + JSON, ${c.name}`, plain);
      rows.push({ subject, reference, ratio: subject.throughput! / reference.throughput!, target: c.target });
    }
    report({
      scenario: 'scan-http',
      subject: rows[0]!.subject,
      reference: rows[0]!.reference,
      ratio: rows[0]!.ratio,
      ratio_of: 'scans/s vs plain JavaScript over the same records',
      target: rows[0]!.target,
      rows,
      extra: Object.fromEntries(rows.map((r) => [`${r.subject.label}: p50 ms`, r.subject.p50_ms])),
      notes:
        `POST /api/find over ${RECORDS.toLocaleString('en')} records of ~200 B, no index, one request at a time ` +
        `(${RUNS} runs, client in the bench process); targets: the stated p50s`,
    });
  } finally {
    await stopEddy(e);
  }
}
