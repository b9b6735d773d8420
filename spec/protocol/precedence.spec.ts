/**
 * The route precedence rules of protocol.md (1.1, 2.13, gotcha 11), as
 * concrete requests matched by the real router.
 */
import { expect } from 'chai';
import { routeKey } from './route-key.js';
import { routeFor } from './served.js';

interface Example {
  /** The protocol's rule, in a few words. */
  readonly rule: string;
  readonly method: string;
  /** The request path as a client sends it (percent-encoded). */
  readonly path: string;
  /** The inventory route (protocol notation) that must win. */
  readonly wins: string;
  /** The decoded parameter values the winner must see, in path order. */
  readonly params: readonly string[];
}

const SEQUENCE = 'the literal `sequence` segment wins over a collection id (gotcha 11)';
const SPLIT_FIRST = 'the path is split on `/` before percent-decoding (1.1)';
const CHAT_LITERALS = 'literal segments under /api/chat/ win over {chatId} (2.13)';
const GOAL_SEARCH = '`search` wins over goals/{id} (2.13)';
const TASKS_DUE = '`due` wins over tasks/{id} (2.13)';
const AGENT_LOOKUPS = '`by-name` and `by-deployment` win over agents/{id} (2.13)';

const EXAMPLES: readonly Example[] = [
  {
    rule: SEQUENCE,
    method: 'PUT',
    path: '/api/update/sequence/users/u1',
    wins: 'PUT /api/update/sequence/{c}/{id}',
    params: ['users', 'u1'],
  },
  {
    rule: SEQUENCE,
    method: 'PUT',
    path: '/api/update/sequence/u1',
    wins: 'PUT /api/update/{c}/{id}',
    params: ['sequence', 'u1'],
  },
  {
    rule: SEQUENCE,
    method: 'PUT',
    path: '/api/update/sequence/u1/action/push',
    wins: 'PUT /api/update/{c}/{id}/action/{action}',
    params: ['sequence', 'u1', 'push'],
  },
  {
    rule: SPLIT_FIRST,
    method: 'GET',
    path: '/api/kv/get/session%2Fabc',
    wins: 'GET /api/kv/get/{key}',
    params: ['session/abc'],
  },
  {
    rule: SPLIT_FIRST,
    method: 'POST',
    path: '/api/kv/set/a%2Fb%3Fc%23d%20e',
    wins: 'POST /api/kv/set/{key}',
    params: ['a/b?c#d e'],
  },
  {
    rule: SPLIT_FIRST,
    method: 'GET',
    path: '/api/find/users/x%2Fy',
    wins: 'GET /api/find/{c}/{id}',
    params: ['users', 'x/y'],
  },
  {
    rule: SPLIT_FIRST,
    method: 'DELETE',
    path: '/api/transactions/t1/savepoints/sp%2F1',
    wins: 'DELETE /api/transactions/{tx}/savepoints/{name}',
    params: ['t1', 'sp/1'],
  },

  { rule: CHAT_LITERALS, method: 'GET', path: '/api/chat/tools', wins: 'GET /api/chat/tools', params: [] },
  { rule: CHAT_LITERALS, method: 'POST', path: '/api/chat/branch', wins: 'POST /api/chat/branch', params: [] },
  { rule: CHAT_LITERALS, method: 'POST', path: '/api/chat/merge', wins: 'POST /api/chat/merge', params: [] },
  { rule: CHAT_LITERALS, method: 'POST', path: '/api/chat/complete', wins: 'POST /api/chat/complete', params: [] },
  {
    rule: CHAT_LITERALS,
    method: 'POST',
    path: '/api/chat/complete/stream',
    wins: 'POST /api/chat/complete/stream',
    params: [],
  },
  {
    rule: CHAT_LITERALS,
    method: 'POST',
    path: '/api/chat/tools/execute',
    wins: 'POST /api/chat/tools/execute',
    params: [],
  },
  { rule: CHAT_LITERALS, method: 'GET', path: '/api/chat/goals', wins: 'GET /api/chat/goals', params: [] },
  {
    rule: CHAT_LITERALS,
    method: 'GET',
    path: '/api/chat/goal-templates',
    wins: 'GET /api/chat/goal-templates',
    params: [],
  },
  { rule: CHAT_LITERALS, method: 'GET', path: '/api/chat/tasks', wins: 'GET /api/chat/tasks', params: [] },
  { rule: CHAT_LITERALS, method: 'GET', path: '/api/chat/agents', wins: 'GET /api/chat/agents', params: [] },
  {
    rule: CHAT_LITERALS,
    method: 'GET',
    path: '/api/chat/goals/messages',
    wins: 'GET /api/chat/goals/{id}',
    params: ['messages'],
  },
  { rule: CHAT_LITERALS, method: 'GET', path: '/api/chat/c1', wins: 'GET /api/chat/{chatId}', params: ['c1'] },
  {
    rule: GOAL_SEARCH,
    method: 'GET',
    path: '/api/chat/goals/search?q=launch',
    wins: 'GET /api/chat/goals/search',
    params: [],
  },
  { rule: GOAL_SEARCH, method: 'GET', path: '/api/chat/goals/g1', wins: 'GET /api/chat/goals/{id}', params: ['g1'] },
  {
    rule: TASKS_DUE,
    method: 'GET',
    path: '/api/chat/tasks/due?now=2026-01-01T00:00:00Z',
    wins: 'GET /api/chat/tasks/due',
    params: [],
  },
  { rule: TASKS_DUE, method: 'GET', path: '/api/chat/tasks/t1', wins: 'GET /api/chat/tasks/{id}', params: ['t1'] },
  {
    rule: AGENT_LOOKUPS,
    method: 'GET',
    path: '/api/chat/agents/by-name/scout',
    wins: 'GET /api/chat/agents/by-name/{name}',
    params: ['scout'],
  },
  {
    rule: AGENT_LOOKUPS,
    method: 'GET',
    path: '/api/chat/agents/by-deployment/d1',
    wins: 'GET /api/chat/agents/by-deployment/{deploymentId}',
    params: ['d1'],
  },
  {
    rule: AGENT_LOOKUPS,
    method: 'GET',
    path: '/api/chat/agents/a1',
    wins: 'GET /api/chat/agents/{id}',
    params: ['a1'],
  },
];

describe('protocol route precedence', () => {
  for (const rule of new Set(EXAMPLES.map((e) => e.rule))) {
    describe(rule, () => {
      for (const { method, path, wins, params } of EXAMPLES.filter((e) => e.rule === rule)) {
        it(`routes ${method} ${path} to ${wins}`, () => {
          // The query string is the transport's to strip; the router sees the path.
          const choice = routeFor(method, path.split('?')[0]!);
          expect(choice, `no route for ${method} ${path}`).to.not.equal(undefined);
          const [winMethod, winPath] = wins.split(' ') as [string, string];
          expect(routeKey(method, choice!.path), `${method} ${path} went to ${choice!.path}`).to.equal(
            routeKey(winMethod, winPath),
          );
          expect(choice!.params).to.deep.equal(params);
        });
      }
    });
  }
});
