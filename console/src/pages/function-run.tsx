/**
 * The run form of a stored function: one input per declared parameter (type hint, default, required), calling
 * POST /api/functions/{id}; the answer's records as a table and its stage statistics. The values typed are kept in
 * the URL (`arg.<name>`), so a run can be linked to and repeated.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox } from '../components.js';
import { display, typeOf } from '../values.js';
import {
  defaultText,
  parameterType,
  parameterValue,
  type CallResult,
  type ParameterDefinition,
  type StoredFunction,
} from './function-model.js';
import './functions.css';

/** Records shown in the result table; the rest are counted. */
const SHOWN_RECORDS = 100;
/** Columns of the result table; records with more fields show the rest in their JSON. */
const SHOWN_COLUMNS = 8;

export function RunForm({ fn, query }: { fn: StoredFunction; query: URLSearchParams }) {
  const params = Object.entries(fn.parameters ?? {});
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(params.map(([name]) => [name, query.get(`arg.${name}`) ?? ''])),
  );
  const [result, setResult] = useState<CallResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);

  const run = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    for (const [name, p] of params) if (values[name] !== '') body[name] = parameterValue(values[name]!, p);
    const next = new URLSearchParams({ view: 'run' });
    for (const [name] of params) if (values[name]) next.set(`arg.${name}`, values[name]!);
    // Replaced in place (not navigate): the page stays where it is and the result appears below.
    history.replaceState(null, '', `/functions/${enc(fn.label)}?${next.toString()}`);
    setRunning(true);
    setError(null);
    setResult(null);
    try {
      setResult(await api<CallResult>('POST', `/api/functions/${enc(fn.label)}`, body));
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  return (
    <>
      <form class="card run-form" onSubmit={(e) => void run(e)} aria-label="Run with parameters">
        <h2 class="small">Parameters</h2>
        {params.length === 0 && <p class="muted">This function declares no parameters.</p>}
        {params.map(([name, p]) => (
          <ParameterField
            key={name}
            name={name}
            p={p}
            value={values[name] ?? ''}
            onInput={(v) => setValues((s) => ({ ...s, [name]: v }))}
          />
        ))}
        <p class="muted small">
          Text is sent as JSON when it parses (<code>20</code>, <code>true</code>, <code>{'{"a":1}'}</code>), else as a
          string; parameters typed String or DateTime are always sent as text. Empty optional parameters take their
          default.
        </p>
        <div class="actions">
          <button type="submit" disabled={running}>
            {running ? 'Running…' : 'Run'}
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
      {result && <RunResult result={result} />}
    </>
  );
}

function ParameterField({
  name,
  p,
  value,
  onInput,
}: {
  name: string;
  p: ParameterDefinition;
  value: string;
  onInput: (v: string) => void;
}) {
  const id = `arg-${name}`;
  const type = parameterType(p);
  const fallback = defaultText(p);
  return (
    <div class="param">
      <label for={id}>
        <code>{name}</code>
        {type && <span class="type">{type}</span>}
        {p.required ? <span class="required"> required</span> : <span class="muted"> optional</span>}
      </label>
      <input
        id={id}
        name={name}
        value={value}
        required={p.required === true}
        placeholder={fallback === undefined ? undefined : `default: ${fallback}`}
        aria-describedby={p.description ? `${id}-hint` : undefined}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {p.description && (
        <span id={`${id}-hint`} class="muted small">
          {p.description}
        </span>
      )}
    </div>
  );
}

function RunResult({ result }: { result: CallResult }) {
  const records = result.records ?? [];
  const stats = result.stats ?? {};
  const stages = stats.stage_stats ?? [];
  const slowest = Math.max(1, ...stages.map((s) => s.execution_time_ms));
  return (
    <section class="card run-result" aria-labelledby="run-result-title" data-testid="run-result">
      <h2 id="run-result-title" class="small">
        Result
      </h2>
      <dl class="facts run-facts">
        <dt>Records out</dt>
        <dd data-testid="output-count">{stats.output_count ?? records.length}</dd>
        <dt>Stages run</dt>
        <dd>{stats.stages_executed ?? stages.length}</dd>
        <dt>Time</dt>
        <dd>{stats.execution_time_ms ?? '—'} ms</dd>
      </dl>
      <h3 class="small">Stage statistics</h3>
      {stages.length === 0 ? (
        <p class="muted">The answer carries no stage statistics.</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Stage statistics">
          <table class="data stage-stats" data-testid="stage-stats">
            <thead>
              <tr>
                <th scope="col" class="num">
                  #
                </th>
                <th scope="col">Stage</th>
                <th scope="col" class="num">
                  In
                </th>
                <th scope="col" class="num">
                  Out
                </th>
                <th scope="col" class="num">
                  Time (ms)
                </th>
                <th scope="col">Share of the slowest</th>
              </tr>
            </thead>
            <tbody>
              {stages.map((s, i) => (
                <tr key={i}>
                  <td class="num">{i + 1}</td>
                  <td>{s.stage}</td>
                  <td class="num">{s.input_count}</td>
                  <td class="num">{s.output_count}</td>
                  <td class="num">{s.execution_time_ms}</td>
                  <td>
                    <meter
                      min={0}
                      max={slowest}
                      value={s.execution_time_ms}
                      aria-label={`Time of stage ${i + 1}, ${s.stage}`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 class="small">Records</h3>
      <ResultRecords records={records} />
      <details>
        <summary>The whole answer as JSON</summary>
        <pre class="json" tabIndex={0} aria-label="The answer as JSON">
          {JSON.stringify(result, null, 2)}
        </pre>
      </details>
    </section>
  );
}

function ResultRecords({ records }: { records: Record<string, unknown>[] }) {
  if (records.length === 0) return <p class="muted">No records.</p>;
  const shown = records.slice(0, SHOWN_RECORDS);
  const columns = [...new Set(shown.flatMap((r) => Object.keys(r)))].slice(0, SHOWN_COLUMNS);
  return (
    <>
      <div class="scroll" tabIndex={0} role="region" aria-label="Records of the result">
        <table class="data" data-testid="result-records">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>
                    {c in r ? (
                      <>
                        {display(r[c])}
                        <span class="type">{typeOf(r[c])}</span>
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {records.length > shown.length && (
        <p class="muted">
          The first {shown.length} of {records.length} records; the JSON below has them all.
        </p>
      )}
    </>
  );
}
