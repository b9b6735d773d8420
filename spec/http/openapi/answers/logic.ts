/**
 * Stored functions (saved, called, routed), chat on the offline local
 * provider (completion, sessions, messages, streams, tools, embeddings),
 * goals, templates, tasks, agents and schedules: answers against the
 * document.
 */
import { expect } from 'chai';
import type { Exchanges } from '../exchanges.js';

export function logicAnswers(h: Exchanges): void {
  describe('stored functions', () => {
    it('save, list, read, replace, call, route, delete', async () => {
      await h.call('POST', '/api/insert/fn_items', { n: 1 }, { expect: 201 });
      await h.call(
        'POST',
        '/api/functions',
        {
          label: 'all_items',
          name: 'all items',
          parameters: {},
          tags: ['demo'],
          functions: [{ type: 'FindAll', collection: 'fn_items' }],
        },
        { expect: 200 },
      );
      await h.call('POST', '/api/functions', { label: 'all_items', name: 'again', functions: [] }, { expect: 409 });
      await h.call(
        'POST',
        '/api/functions',
        { label: 'bad', name: 'b', functions: [{ type: 'Qurey' }] },
        {
          expect: 400,
        },
      );
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        await h.call(
          'POST',
          '/api/functions',
          {
            label: `routed_${method.toLowerCase()}`,
            name: `routed ${method}`,
            http_method: method,
            http_path: '/things/:id',
            functions: [
              { type: 'Return', fields: { id: '{{id}}', method }, status_code: method === 'POST' ? 201 : 200 },
            ],
          },
          { expect: 200 },
        );
      }
      await h.call('GET', '/api/functions', undefined, { expect: 200 });
      await h.call('GET', '/api/functions?tags=demo', undefined, { expect: 200 });
      await h.call('GET', '/api/functions/all_items', undefined, { expect: 200 });
      await h.call('GET', '/api/functions/nope', undefined, { expect: 404 });
      await h.call(
        'PUT',
        '/api/functions/all_items',
        {
          label: 'all_items',
          name: 'first item',
          functions: [
            { type: 'FindAll', collection: 'fn_items' },
            { type: 'Limit', limit: 1 },
          ],
        },
        { expect: 200 },
      );
      const called = await h.call('POST', '/api/functions/all_items', {}, { expect: 200 });
      expect(called.body.records).to.have.length(1);
      await h.call('GET', '/api/route/things/7', undefined, { expect: 200 });
      await h.call('POST', '/api/route/things/7', { id: '8' }, { expect: 201 });
      await h.call('PUT', '/api/route/things/7', {}, { expect: 200 });
      await h.call('PATCH', '/api/route/things/7', {}, { expect: 200 });
      await h.call('DELETE', '/api/route/things/7', {}, { expect: 200 });
      await h.call('GET', '/api/route/nothing/here', undefined, { expect: 404 });
      await h.call('DELETE', '/api/functions/routed_get', undefined, { expect: 200 });
      await h.call('DELETE', '/api/functions/routed_get', undefined, { expect: 404 });
      h.assertClean();
    });
  });

  describe('chat on the local provider', () => {
    it('models, completion, embeddings, tools', async () => {
      await h.call('GET', '/api/chat_models', undefined, { expect: 200 });
      await h.call('GET', '/api/chat_models/local', undefined, { expect: 200 });
      await h.call('GET', '/api/chat_models/openai', undefined, { expect: 404 });
      await h.call('POST', '/api/chat/complete', { message: 'hi', provider: 'local', max_tokens: 50 }, { expect: 200 });
      await h.call('POST', '/api/chat/complete', { message: '' }, { expect: 400 });
      const streamed = await h.stream(
        'POST',
        '/api/chat/complete/stream',
        { message: 'two words', provider: 'local' },
        (events) => events.some((e) => (e.data as { done?: boolean }).done === true),
      );
      expect(streamed.events.length).to.be.greaterThan(1);
      await h.call('POST', '/api/chat/complete/stream', { message: 'x', provider: 'nope' }, { expect: 400 });
      await h.call('POST', '/api/embed', { text: 'hello' }, { expect: 200 });
      await h.call('POST', '/api/embed', { texts: ['a', 'b'] }, { expect: 200 });
      await h.call('POST', '/api/embed', { texts: [] }, { expect: 400 });
      await h.call('GET', '/api/chat/tools', undefined, { expect: 200 });
      await h.call('POST', '/api/chat/tools/execute', { tool: 'list_collections', params: {} }, { expect: 200 });
      await h.call('POST', '/api/chat/tools/execute', { tool: 'no_such_tool' }, { expect: 200 });
      await h.call('POST', '/api/chat/tools/execute', {}, { expect: 400 });
      h.assertClean();
    });

    it('sessions and messages: send, stream, edit, forget, regenerate, compact, branch, merge, delete', async () => {
      await h.call(
        'POST',
        '/api/insert/kb',
        { title: 'Shipping', body: 'Parcels leave every Tuesday.' },
        { expect: 201 },
      );
      const created = await h.call(
        'POST',
        '/api/chat',
        { collections: [{ collection_name: 'kb', fields: [] }], llm_provider: 'local', title: 'Support' },
        { expect: 200 },
      );
      const chat = created.body.chat_id as string;
      await h.call('POST', '/api/chat', { collections: 'kb' }, { expect: 400 });
      await h.call('GET', '/api/chat?limit=10&sort=desc', undefined, { expect: 200 });
      await h.call('GET', `/api/chat/${chat}`, undefined, { expect: 200 });
      await h.call('GET', '/api/chat/nope', undefined, { expect: 404 });
      await h.call('PUT', `/api/chat/${chat}`, { title: 'Support 2', max_context_messages: 20 }, { expect: 200 });
      await h.call('POST', `/api/chat/${chat}/messages`, { message: 'When do parcels leave?' }, { expect: 200 });
      await h.call('POST', `/api/chat/${chat}/messages`, {}, { expect: 400 });
      const streamed = await h.stream(
        'POST',
        `/api/chat/${chat}/messages/stream`,
        { message: 'And on Friday?' },
        (events) => events.some((e) => typeof (e.data as { message_id?: string }).message_id === 'string'),
      );
      expect(streamed.status).to.equal(200);
      await h.call('POST', '/api/chat/nope/messages/stream', { message: 'x' }, { expect: 404 });
      const page = await h.call('GET', `/api/chat/${chat}/messages?limit=10&skip=0`, undefined, { expect: 200 });
      const [question, reply] = page.body.messages as Array<{ id: string }>;
      await h.call('GET', `/api/chat/${chat}/messages/${reply!.id}`, undefined, { expect: 200 });
      await h.call('GET', `/api/chat/${chat}/messages/nope`, undefined, { expect: 404 });
      await h.call('PUT', `/api/chat/${chat}/messages/${question!.id}`, { content: 'When?' }, { expect: 200 });
      await h.call(
        'PATCH',
        `/api/chat/${chat}/messages/${question!.id}/forgotten`,
        { forgotten: true },
        { expect: 200 },
      );
      await h.call(
        'PATCH',
        `/api/chat/${chat}/messages/${question!.id}/forgotten`,
        { forgotten: 'yes' },
        { expect: 400 },
      );
      await h.call('POST', `/api/chat/${chat}/messages/${reply!.id}/regenerate`, undefined, { expect: 200 });
      await h.call('POST', `/api/chat/${chat}/compact`, { keep_recent: 1 }, { expect: 200 });
      await h.call(
        'POST',
        `/api/chat/${chat}/tool-result`,
        { call_id: 'c1', success: true, result: 1 },
        { expect: 200 },
      );
      await h.call('POST', `/api/chat/${chat}/tool-result`, { success: true }, { expect: 400 });
      const branch = await h.call('POST', '/api/chat/branch', { parent_id: chat }, { expect: 200 });
      await h.call(
        'POST',
        '/api/chat/merge',
        { source_chat_ids: [chat, branch.body.chat_id], merge_strategy: 'Chronological' },
        { expect: 200 },
      );
      await h.call('POST', '/api/chat/merge', { source_chat_ids: [] }, { expect: 400 });
      await h.call('DELETE', `/api/chat/${chat}/messages/${reply!.id}`, undefined, { expect: 200 });
      await h.call('DELETE', `/api/chat/${branch.body.chat_id}`, undefined, { expect: 200 });
      await h.call('DELETE', `/api/chat/${branch.body.chat_id}`, undefined, { expect: 404 });
      h.assertClean();
    });
  });

  describe('goals, templates, tasks, agents', () => {
    it('every route, with a lifecycle refusal', async () => {
      const goal = (
        await h.call('POST', '/api/chat/goals', { title: 'Ship', steps: ['pack', 'send'] }, { expect: 200 })
      ).body.id as string;
      await h.call('GET', '/api/chat/goals', undefined, { expect: 200 });
      await h.call('GET', '/api/chat/goals/search?q=ship', undefined, { expect: 200 });
      await h.call('GET', `/api/chat/goals/${goal}`, undefined, { expect: 200 });
      await h.call('PUT', `/api/chat/goals/${goal}`, { priority: 'high' }, { expect: 200 });
      await h.call('PUT', `/api/chat/goals/${goal}`, { status: 'completed' }, { expect: 400 });
      await h.call('POST', `/api/chat/goals/${goal}/steps/0/start`, undefined, { expect: 200 });
      await h.call('POST', `/api/chat/goals/${goal}/steps/0/complete`, { result: 'packed' }, { expect: 200 });
      await h.call('POST', `/api/chat/goals/${goal}/steps/1/fail`, { error: 'lost' }, { expect: 200 });
      await h.call('POST', `/api/chat/goals/${goal}/steps/x/start`, undefined, { expect: 400 });
      await h.call('POST', `/api/chat/goals/${goal}/complete`, { summary: 'done' }, { expect: 200 });
      await h.call('POST', `/api/chat/goals/${goal}/approve`, undefined, { expect: 200 });
      await h.call('POST', `/api/chat/goals/${goal}/reject`, { reason: 'late' }, { expect: 200 });
      const refused = await h.call('POST', `/api/chat/goals/${goal}/approve`, undefined, { expect: 409 });
      expect(refused.body.allowed_actions).to.be.an('array');
      await h.call('DELETE', `/api/chat/goals/${goal}`, undefined, { expect: 200 });
      await h.call('GET', `/api/chat/goals/${goal}`, undefined, { expect: 404 });

      const template = (await h.call('POST', '/api/chat/goal-templates', { name: 'release' }, { expect: 200 })).body
        .id as string;
      await h.call('GET', '/api/chat/goal-templates', undefined, { expect: 200 });
      await h.call('GET', `/api/chat/goal-templates/${template}`, undefined, { expect: 200 });
      await h.call('PUT', `/api/chat/goal-templates/${template}`, { name: 'release 2' }, { expect: 200 });
      await h.call('DELETE', `/api/chat/goal-templates/${template}`, undefined, { expect: 200 });

      const task = (await h.call('POST', '/api/chat/tasks', { name: 'sync', cron: '*/5 * * * *' }, { expect: 200 }))
        .body.id as string;
      await h.call('POST', '/api/chat/tasks', { name: 'bad', cron: 'never' }, { expect: 400 });
      await h.call('GET', '/api/chat/tasks', undefined, { expect: 200 });
      await h.call('GET', '/api/chat/tasks/due?now=2100-01-01T00:00:00Z', undefined, { expect: 200 });
      await h.call('GET', `/api/chat/tasks/${task}`, undefined, { expect: 200 });
      await h.call('PUT', `/api/chat/tasks/${task}`, { note: 'n' }, { expect: 200 });
      await h.call('POST', `/api/chat/tasks/${task}/start`, undefined, { expect: 200 });
      await h.call('POST', `/api/chat/tasks/${task}/succeed`, { output: { rows: 3 } }, { expect: 200 });
      await h.call('POST', `/api/chat/tasks/${task}/fail`, { error: 'timeout' }, { expect: 200 });
      await h.call('POST', `/api/chat/tasks/${task}/pause`, undefined, { expect: 200 });
      await h.call('POST', `/api/chat/tasks/${task}/resume`, { next_run: '2100-01-01T00:00:00Z' }, { expect: 200 });
      await h.call('DELETE', `/api/chat/tasks/${task}`, undefined, { expect: 200 });

      const agent = (
        await h.call(
          'POST',
          '/api/chat/agents',
          { name: 'helper', deployment_id: 'd1', system_prompt: 'Be brief.' },
          {
            expect: 200,
          },
        )
      ).body.id as string;
      await h.call('POST', '/api/chat/agents', { name: 'helper' }, { expect: 409 });
      await h.call('GET', '/api/chat/agents', undefined, { expect: 200 });
      await h.call('GET', '/api/chat/agents/by-name/helper', undefined, { expect: 200 });
      await h.call('GET', '/api/chat/agents/by-deployment/d1', undefined, { expect: 200 });
      await h.call('GET', `/api/chat/agents/${agent}`, undefined, { expect: 200 });
      await h.call('PUT', `/api/chat/agents/${agent}`, { system_prompt: 'Be kind.' }, { expect: 200 });
      await h.call('DELETE', `/api/chat/agents/${agent}`, undefined, { expect: 200 });
      h.assertClean();
    });
  });

  describe('schedules', () => {
    it('create, list, read, change, pause, resume, runs, delete', async () => {
      const schedule = (
        await h.call(
          'POST',
          '/api/schedules',
          { cron: '0 3 * * *', function_label: 'all_items', parameters: {} },
          {
            expect: 200,
          },
        )
      ).body.id as string;
      await h.call('POST', '/api/schedules', { cron: 'often' }, { expect: 400 });
      await h.call('GET', '/api/schedules', undefined, { expect: 200 });
      await h.call('GET', `/api/schedules/${schedule}`, undefined, { expect: 200 });
      await h.call('PUT', `/api/schedules/${schedule}`, { timezone: 'Europe/London' }, { expect: 200 });
      await h.call('POST', `/api/schedules/${schedule}/pause`, undefined, { expect: 200 });
      await h.call('POST', `/api/schedules/${schedule}/pause`, undefined, { expect: 409 });
      await h.call('POST', `/api/schedules/${schedule}/resume`, undefined, { expect: 200 });
      await h.call('GET', `/api/schedules/${schedule}/runs?limit=10`, undefined, { expect: 200 });
      await h.call('GET', `/api/schedules/${schedule}/runs?limit=0`, undefined, { expect: 400 });
      await h.call('DELETE', `/api/schedules/${schedule}`, undefined, { expect: 200 });
      await h.call('GET', `/api/schedules/${schedule}`, undefined, { expect: 404 });
      h.assertClean();
    });
  });
}
