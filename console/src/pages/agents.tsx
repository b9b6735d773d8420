/**
 * Agents: the list, a form for a new agent (a unique name, the model, provider and system prompt a chat session
 * takes from it), and an agent's page whose definition is edited as JSON, and deleted.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc, fieldErrors } from '../api.js';
import { ConfirmButton, ErrorBox, JsonEditor, jsonProblem, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import {
  AdminOnlyNote,
  Crumbs,
  Pager,
  pageOf,
  RecordJson,
  StatusBadge,
  text,
  Time,
  useActions,
  useWorkflowAccess,
  WorkflowTabs,
  type WorkflowRecord,
} from './workflow-parts.js';

/** The model an agent names, in either spelling the clients use. */
const modelOf = (a: WorkflowRecord) => text(a.model ?? a.llm_model);
const providerOf = (a: WorkflowRecord) => text(a.provider ?? a.llm_provider);

/** Shown for a member the agent does not have. */
function Dash() {
  return <span class="muted">—</span>;
}

/** The members the server keeps itself, left out of the editable definition. */
const SERVER_MEMBERS = ['id', 'created_at', 'updated_at'];

function definitionOf(a: WorkflowRecord): string {
  const rest = Object.fromEntries(Object.entries(a).filter(([k]) => !SERVER_MEMBERS.includes(k)));
  return JSON.stringify(rest, null, 2);
}

export function AgentsList({ query }: { query: URLSearchParams }) {
  const { admin, reason } = useWorkflowAccess();
  const list = useApi<{ agents: WorkflowRecord[] }>(admin ? '/api/chat/agents' : null);
  const path = '/workflow/agents';
  const all = list.data?.agents;
  const shown = all && pageOf(all, query);
  return (
    <main id="main">
      <h1>Agents</h1>
      <WorkflowTabs current="agents" />
      <AdminOnlyNote admin={admin} />
      <div class="wf-toolbar">
        <p class="muted small">A chat session created with an agent’s id takes its prompt, model and provider.</p>
        {admin ? (
          <a class="wf-button" href="/workflow/agents/new">
            New agent
          </a>
        ) : (
          <button type="button" disabled title={reason}>
            New agent
          </button>
        )}
      </div>
      <ErrorBox error={list.error} />
      {admin && list.loading && !all && <Loading what="agents" />}
      {shown && shown.matching === 0 && <p class="muted">No agents yet.</p>}
      {shown && shown.matching > 0 && (
        <>
          <div class="scroll" role="region" aria-label="Agents" tabIndex={0}>
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Deployment</th>
                  <th scope="col">Status</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((a) => (
                  <tr key={a.id} data-id={a.id}>
                    <td>
                      <a href={`/workflow/agents/${enc(a.id)}`}>{text(a.name) || a.id}</a>
                    </td>
                    <td>{modelOf(a) || <Dash />}</td>
                    <td>{providerOf(a) || <Dash />}</td>
                    <td>{text(a.deployment_id) || <Dash />}</td>
                    <td>{a.status === undefined ? <Dash /> : <StatusBadge status={a.status} />}</td>
                    <td>
                      <Time iso={a.updated_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager path={path} query={query} {...shown} noun="agents" />
        </>
      )}
    </main>
  );
}

export function NewAgent() {
  const { admin, reason } = useWorkflowAccess();
  const [form, setForm] = useState({ name: '', model: '', provider: '', deployment: '', description: '', prompt: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof form) => ({
    id: `agent-${name}`,
    value: form[name],
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { name: form.name.trim() };
    const optional: [string, string][] = [
      ['model', form.model],
      ['provider', form.provider],
      ['deployment_id', form.deployment],
      ['description', form.description],
      ['system_prompt', form.prompt],
    ];
    for (const [member, value] of optional) if (value.trim()) body[member] = value.trim();
    try {
      const agent = await api<WorkflowRecord>('POST', '/api/chat/agents', body);
      navigate(`/workflow/agents/${enc(agent.id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <Crumbs tab="agents" here="New agent" />
      <h1>New agent</h1>
      <AdminOnlyNote admin={admin} />
      <form class="card wf-form" onSubmit={(e) => void submit(e)}>
        <label for="agent-name">Name (unique)</label>
        <input required {...field('name')} />
        <label for="agent-model">Model</label>
        <input placeholder="local-echo" {...field('model')} />
        <label for="agent-provider">Provider</label>
        <input placeholder="local" {...field('provider')} />
        <label for="agent-deployment">Deployment id</label>
        <input {...field('deployment')} />
        <label for="agent-description">Description</label>
        <input {...field('description')} />
        <label for="agent-prompt">System prompt</label>
        <textarea rows={5} {...field('prompt')} />
        <p class="muted small">More members (capabilities, tools…) can be added on the agent’s page, as JSON.</p>
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!admin || busy || !form.name.trim()} title={reason}>
            Create agent
          </button>
          <a href="/workflow/agents">Cancel</a>
        </div>
      </form>
    </main>
  );
}

export function AgentView({ id }: { id: string }) {
  const { admin, reason } = useWorkflowAccess();
  const agent = useApi<WorkflowRecord>(admin ? `/api/chat/agents/${enc(id)}` : null);
  const { error, act } = useActions(() => undefined);
  const a = agent.data;
  const [draft, setDraft] = useState('');
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (a) setDraft(definitionOf(a));
  }, [a]);
  const base = `/api/chat/agents/${enc(id)}`;
  const changed = a !== undefined && draft !== definitionOf(a);
  const save = async (e: Event) => {
    e.preventDefault();
    setSaveError(null);
    setSaved(false);
    try {
      await api<WorkflowRecord>('PUT', base, JSON.parse(draft));
      setSaved(true);
      agent.reload();
    } catch (err) {
      setSaveError(err);
    }
  };
  return (
    <main id="main">
      <Crumbs tab="agents" here={a ? text(a.name) || id : id} />
      <h1>{a ? `Agent ${text(a.name)}` : 'Agent'}</h1>
      <AdminOnlyNote admin={admin} />
      <ErrorBox error={agent.error} />
      {admin && !a && !agent.error && <Loading what="the agent" />}
      {a && (
        <>
          <section class="card" aria-labelledby="agent-facts">
            <h2 id="agent-facts" class="small">
              Agent
            </h2>
            <dl class="facts">
              <dt>Id</dt>
              <dd>
                <code>{a.id}</code>
              </dd>
              <dt>Model</dt>
              <dd>{modelOf(a) || '—'}</dd>
              <dt>Provider</dt>
              <dd>{providerOf(a) || '—'}</dd>
              <dt>Created</dt>
              <dd>
                <Time iso={a.created_at} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time iso={a.updated_at} />
              </dd>
            </dl>
          </section>
          <form class="card wf-form" onSubmit={(e) => void save(e)}>
            <JsonEditor
              id="agent-definition"
              label="Definition (JSON; members left out are kept, as an update is partial)"
              value={draft}
              onInput={(v) => {
                setDraft(v);
                setSaved(false);
              }}
              errors={fieldErrors(saveError)}
              readOnly={!admin}
            />
            <ErrorBox error={saveError} />
            {saved && (
              <p class="wf-ok" role="status">
                Saved.
              </p>
            )}
            <div class="actions">
              <button
                type="submit"
                disabled={!admin || !changed || jsonProblem(draft) !== undefined}
                title={reason ?? (changed ? undefined : 'Nothing changed')}
              >
                Save agent
              </button>
              <ConfirmButton
                label="Delete"
                question={`Delete the agent “${text(a.name)}”? Sessions created with it keep what they took.`}
                disabled={!admin}
                title={reason}
                onConfirm={async () => {
                  if ((await act('DELETE', base)) !== undefined) navigate('/workflow/agents');
                }}
              />
            </div>
          </form>
          <ErrorBox error={error} />
          <RecordJson record={a} label="The agent as JSON" />
        </>
      )}
    </main>
  );
}
