/**
 * Agents: the list, a form for a new agent (a unique name, the model, provider and system prompt a chat session
 * takes from it), and an agent's page whose definition is edited as JSON, and deleted.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, fieldErrors } from '../api.js';
import { ErrorBox, JsonEditor, jsonProblem } from '../components.js';
import {
  Dash,
  DeleteButton,
  Fact,
  NewRecordForm,
  RecordFrame,
  StatusBadge,
  text,
  Time,
  TimeFact,
  useFields,
  useRecordPage,
  type RecordPage,
  type WorkflowRecord,
} from './workflow-parts.js';
import { nameColumn, WorkflowListPage } from './workflow-list.js';

/** The model an agent names, in either spelling the clients use. */
const modelOf = (a: WorkflowRecord) => text(a.model ?? a.llm_model);
const providerOf = (a: WorkflowRecord) => text(a.provider ?? a.llm_provider);
const nameOf = (a: WorkflowRecord) => text(a.name);

/** The members the server keeps itself, left out of the editable definition. */
const SERVER_MEMBERS = ['id', 'created_at', 'updated_at'];

function definitionOf(a: WorkflowRecord): string {
  const rest = Object.fromEntries(Object.entries(a).filter(([k]) => !SERVER_MEMBERS.includes(k)));
  return JSON.stringify(rest, null, 2);
}

export function AgentsList({ query }: { query: URLSearchParams }) {
  return (
    <WorkflowListPage
      tab="agents"
      query={query}
      intro={<p class="muted small">A chat session created with an agent’s id takes its prompt, model and provider.</p>}
      columns={[
        nameColumn('agents', 'Name', (a) => nameOf(a) || a.id),
        { label: 'Model', cell: (a) => modelOf(a) || <Dash /> },
        { label: 'Provider', cell: (a) => providerOf(a) || <Dash /> },
        { label: 'Deployment', cell: (a) => text(a.deployment_id) || <Dash /> },
        { label: 'Status', cell: (a) => (a.status === undefined ? <Dash /> : <StatusBadge status={a.status} />) },
        { label: 'Updated', cell: (a) => <Time iso={a.updated_at} /> },
      ]}
    />
  );
}

export function NewAgent() {
  const { form, field } = useFields('agent', {
    name: '',
    model: '',
    provider: '',
    deployment: '',
    description: '',
    prompt: '',
  });
  const body = () => {
    const body: Record<string, unknown> = { name: form.name.trim() };
    const optional: [string, string][] = [
      ['model', form.model],
      ['provider', form.provider],
      ['deployment_id', form.deployment],
      ['description', form.description],
      ['system_prompt', form.prompt],
    ];
    for (const [member, value] of optional) if (value.trim()) body[member] = value.trim();
    return body;
  };
  return (
    <NewRecordForm tab="agents" body={body} ready={!!form.name.trim()}>
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
    </NewRecordForm>
  );
}

export function AgentView({ id }: { id: string }) {
  const page = useRecordPage('agents', id);
  return (
    <RecordFrame
      page={page}
      name={(a) => nameOf(a) || id}
      heading={(a) => `Agent ${nameOf(a)}`}
      facts={(a) => (
        <>
          <Fact term="Id">
            <code>{a.id}</code>
          </Fact>
          <Fact term="Model">{modelOf(a) || '—'}</Fact>
          <Fact term="Provider">{providerOf(a) || '—'}</Fact>
          <TimeFact term="Created" iso={a.created_at} />
          <TimeFact term="Updated" iso={a.updated_at} />
        </>
      )}
    >
      {(a) => (
        <>
          <DefinitionForm agent={a} page={page} />
          <ErrorBox error={page.error} />
        </>
      )}
    </RecordFrame>
  );
}

/** The agent's members as JSON, saved as a partial update, beside delete. */
function DefinitionForm({ agent, page }: { agent: WorkflowRecord; page: RecordPage }) {
  const { admin, reason } = page;
  const [draft, setDraft] = useState(() => definitionOf(agent));
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(definitionOf(agent)), [agent]);
  const changed = draft !== definitionOf(agent);
  const save = async (e: Event) => {
    e.preventDefault();
    setSaveError(null);
    setSaved(false);
    try {
      await api<WorkflowRecord>('PUT', page.base, JSON.parse(draft));
      setSaved(true);
      page.load.reload();
    } catch (err) {
      setSaveError(err);
    }
  };
  return (
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
        <DeleteButton
          page={page}
          question={`Delete the agent “${nameOf(agent)}”? Sessions created with it keep what they took.`}
        />
      </div>
    </form>
  );
}
