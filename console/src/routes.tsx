/**
 * The console's pages: one table of URL patterns (`:name` takes one segment) and the sections of the navigation.
 * A page is added here and nowhere else in the shell.
 */
import type { ComponentChild } from 'preact';
import { Overview } from './pages/overview.js';
import { Collections } from './pages/collections.js';
import { CollectionSettings } from './pages/collection-settings.js';
import { Records } from './pages/records.js';
import { RecordView } from './pages/record.js';
import { NewRecord } from './pages/record-editor.js';
import { ImportPage } from './pages/import-export.js';
import { RealTime } from './pages/realtime.js';
import { Functions } from './pages/functions.js';
import { FunctionPage } from './pages/function.js';
import { Workflow } from './pages/workflow.js';
import { GoalsList, GoalView, NewGoal } from './pages/goals.js';
import { NewTask, TasksList, TaskView } from './pages/tasks.js';
import { AgentsList, AgentView, NewAgent } from './pages/agents.js';
import { NewSchedule, SchedulesList, ScheduleView } from './pages/schedules.js';
import { KeyValue } from './pages/kv.js';
import { Search } from './pages/search.js';
import { KeyDetail, Keys, NewKey } from './pages/keys.js';
import { Transactions } from './pages/transactions.js';
import { Chat } from './pages/chat.js';
import { ChatConversation } from './pages/chat-conversation.js';

export interface Section {
  id: string;
  label: string;
  href: string;
}

/** The navigation, in the order it is shown. */
export const SECTIONS: Section[] = [
  { id: 'overview', label: 'Overview', href: '/overview' },
  { id: 'collections', label: 'Collections', href: '/collections' },
  { id: 'search', label: 'Search', href: '/search' },
  { id: 'kv', label: 'Key-value', href: '/kv' },
  { id: 'realtime', label: 'Real time', href: '/realtime' },
  { id: 'functions', label: 'Functions', href: '/functions' },
  { id: 'chat', label: 'Chat', href: '/chat' },
  { id: 'workflow', label: 'Workflow', href: '/workflow' },
  { id: 'keys', label: 'Keys', href: '/keys' },
  { id: 'transactions', label: 'Transactions', href: '/transactions' },
];

type Params = Record<string, string>;

export interface Route {
  pattern: string;
  section: string;
  /** The document title (before " · EddyDB"). */
  title(params: Params): string;
  render(params: Params, query: URLSearchParams): ComponentChild;
}

export const ROUTES: Route[] = [
  { pattern: '/overview', section: 'overview', title: () => 'Overview', render: () => <Overview /> },
  { pattern: '/collections', section: 'collections', title: () => 'Collections', render: () => <Collections /> },
  {
    pattern: '/collections/:collection',
    section: 'collections',
    title: (p) => p.collection!,
    render: (p, query) => <Records collection={p.collection!} query={query} />,
  },
  {
    pattern: '/collections/:collection/settings',
    section: 'collections',
    title: (p) => `Settings of ${p.collection}`,
    render: (p, query) => <CollectionSettings collection={p.collection!} tab="schema" query={query} />,
  },
  {
    pattern: '/collections/:collection/settings/:tab',
    section: 'collections',
    title: (p) => `Settings of ${p.collection}`,
    render: (p, query) => <CollectionSettings collection={p.collection!} tab={p.tab!} query={query} />,
  },
  {
    pattern: '/collections/:collection/records/:id',
    section: 'collections',
    title: (p) => `${p.id} in ${p.collection}`,
    render: (p, query) => <RecordView collection={p.collection!} id={p.id!} edit={query.get('edit') === '1'} />,
  },
  {
    pattern: '/collections/:collection/new',
    section: 'collections',
    title: (p) => `New record in ${p.collection}`,
    render: (p) => <NewRecord collection={p.collection!} />,
  },
  {
    pattern: '/collections/:collection/import',
    section: 'collections',
    title: (p) => `Import into ${p.collection}`,
    render: (p) => <ImportPage collection={p.collection!} />,
  },
  {
    pattern: '/realtime',
    section: 'realtime',
    title: () => 'Real time',
    render: () => <RealTime collection={undefined} />,
  },
  {
    pattern: '/realtime/:collection',
    section: 'realtime',
    title: (p) => `Real time: ${p.collection}`,
    render: (p) => <RealTime collection={p.collection} />,
  },
  {
    pattern: '/functions',
    section: 'functions',
    title: () => 'Functions',
    render: (_, query) => <Functions query={query} />,
  },
  {
    pattern: '/functions/:fn',
    section: 'functions',
    title: (p) => `Function ${p.fn}`,
    render: (p, query) => <FunctionPage idOrLabel={p.fn!} query={query} />,
  },
  { pattern: '/workflow', section: 'workflow', title: () => 'Workflow', render: () => <Workflow /> },
  { pattern: '/workflow/goals', section: 'workflow', title: () => 'Goals', render: (_, q) => <GoalsList query={q} /> },
  { pattern: '/workflow/goals/new', section: 'workflow', title: () => 'New goal', render: () => <NewGoal /> },
  { pattern: '/workflow/goals/:id', section: 'workflow', title: () => 'Goal', render: (p) => <GoalView id={p.id!} /> },
  { pattern: '/workflow/tasks', section: 'workflow', title: () => 'Tasks', render: (_, q) => <TasksList query={q} /> },
  { pattern: '/workflow/tasks/new', section: 'workflow', title: () => 'New task', render: () => <NewTask /> },
  { pattern: '/workflow/tasks/:id', section: 'workflow', title: () => 'Task', render: (p) => <TaskView id={p.id!} /> },
  {
    pattern: '/workflow/agents',
    section: 'workflow',
    title: () => 'Agents',
    render: (_, q) => <AgentsList query={q} />,
  },
  { pattern: '/workflow/agents/new', section: 'workflow', title: () => 'New agent', render: () => <NewAgent /> },
  {
    pattern: '/workflow/agents/:id',
    section: 'workflow',
    title: () => 'Agent',
    render: (p) => <AgentView id={p.id!} />,
  },
  {
    pattern: '/workflow/schedules',
    section: 'workflow',
    title: () => 'Schedules',
    render: (_, q) => <SchedulesList query={q} />,
  },
  {
    pattern: '/workflow/schedules/new',
    section: 'workflow',
    title: () => 'New schedule',
    render: () => <NewSchedule />,
  },
  {
    pattern: '/workflow/schedules/:id',
    section: 'workflow',
    title: () => 'Schedule',
    render: (p, q) => <ScheduleView id={p.id!} query={q} />,
  },
  { pattern: '/kv', section: 'kv', title: () => 'Key-value', render: (_p, query) => <KeyValue query={query} /> },
  {
    pattern: '/kv/:key',
    section: 'kv',
    title: (p) => `Key ${p.key}`,
    render: (p, query) => <KeyValue selected={p.key!} query={query} />,
  },
  { pattern: '/search', section: 'search', title: () => 'Search', render: (_p, query) => <Search query={query} /> },
  { pattern: '/keys', section: 'keys', title: () => 'Keys', render: () => <Keys /> },
  { pattern: '/keys/new', section: 'keys', title: () => 'New key', render: () => <NewKey /> },
  { pattern: '/keys/:id', section: 'keys', title: (p) => `Key ${p.id}`, render: (p) => <KeyDetail id={p.id!} /> },
  {
    pattern: '/transactions',
    section: 'transactions',
    title: () => 'Transactions',
    render: (_p, query) => <Transactions query={query} />,
  },
  { pattern: '/chat', section: 'chat', title: () => 'Chat', render: (_p, query) => <Chat query={query} /> },
  {
    pattern: '/chat/:chatId',
    section: 'chat',
    title: () => 'Chat session',
    render: (p, query) => <ChatConversation key={p.chatId} chatId={p.chatId!} query={query} />,
  },
];

/** The route for a path and its decoded parameters, or undefined for an unknown path. */
export function matchRoute(path: string): { route: Route; params: Params } | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of ROUTES) {
    const pattern = route.pattern.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Params = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const want = pattern[i]!;
      let got: string;
      try {
        got = decodeURIComponent(parts[i]!);
      } catch {
        ok = false;
        break;
      }
      if (want.startsWith(':')) params[want.slice(1)] = got;
      else ok = want === got;
    }
    if (ok) return { route, params };
  }
  return undefined;
}
