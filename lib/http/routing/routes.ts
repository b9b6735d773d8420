/**
 * The HTTP route table: one line per protocol route, mapping method and path
 * to a procedure and its success status (a stream procedure's route is
 * answered as server-sent events). Literal routes come before their
 * parameterised siblings (protocol.md gotcha 11).
 */
import type { RouteDef } from './router.js';

export interface RouteTarget {
  readonly procedure: string;
  /** Success status (default 200). */
  readonly status?: number;
  /**
   * How a stream route's events are framed: `event` (default: `event:` +
   * `data:` frames, heartbeat events; subscriptions) or `data` (`data:`
   * frames only, heartbeats as `:` comments; chat streams, whose clients read
   * only data lines).
   */
  readonly sse?: 'event' | 'data';
}

const r = (method: string, path: string, procedure: string, status?: number): RouteDef<RouteTarget> =>
  ({ method, path, target: status ? { procedure, status } : { procedure } });

/** A stream route framed as SSE `data:` lines (chat streams). */
const dataStream = (method: string, path: string, procedure: string): RouteDef<RouteTarget> =>
  ({ method, path, target: { procedure, sse: 'data' } });

export const ROUTES: ReadonlyArray<RouteDef<RouteTarget>> = [
  r('GET', '/api/health', 'health.get'),
  r('POST', '/api/auth/token', 'auth.token'),
  r('POST', '/api/auth/keys', 'keys.create', 201),
  r('GET', '/api/auth/keys', 'keys.list'),
  r('PUT', '/api/auth/keys/:id', 'keys.update'),
  r('DELETE', '/api/auth/keys/:id', 'keys.revoke'),
  r('GET', '/api/config', 'config.get'),
  r('PUT', '/api/config', 'config.update'),
  r('POST', '/api/admin/snapshot', 'admin.snapshot'),
  r('GET', '/api/admin/audit', 'audit.list'),
  r('POST', '/api/ripple/apply', 'ripple.apply'),
  r('GET', '/api/ripple/status', 'ripple.status'),
  r('POST', '/api/ripple/resync', 'ripple.resync'),

  r('POST', '/api/batch/insert/:collection', 'batch.insert'),
  r('PUT', '/api/batch/update/:collection', 'batch.update'),
  r('DELETE', '/api/batch/delete/:collection', 'batch.delete'),

  r('POST', '/api/transactions', 'transactions.begin'),
  r('GET', '/api/transactions', 'transactions.list'),
  r('GET', '/api/transactions/:id', 'transactions.status'),
  r('POST', '/api/transactions/:id/commit', 'transactions.commit'),
  r('POST', '/api/transactions/:id/rollback', 'transactions.rollback'),
  r('POST', '/api/transactions/:id/savepoints', 'savepoints.create'),
  r('POST', '/api/transactions/:id/savepoints/:name/rollback', 'savepoints.rollback'),
  r('DELETE', '/api/transactions/:id/savepoints/:name', 'savepoints.release'),

  r('GET', '/api/collections', 'collections.list'),
  r('POST', '/api/collections/:collection', 'collections.create', 201),
  r('GET', '/api/collections/:collection', 'collections.get'),
  r('DELETE', '/api/collections/:collection', 'collections.delete'),
  r('GET', '/api/schemas/:collection', 'schemas.get'),
  r('PUT', '/api/schemas/:collection', 'schemas.update'),
  r('PUT', '/api/schemas/:collection/primary-key-alias', 'schemas.setPrimaryKeyAlias'),
  r('POST', '/api/trash/:collection/:id', 'trash.restore'),
  r('POST', '/api/trash/:collection', 'trash.restoreCollection'),

  // A stream: served as server-sent events (transport/sse.ts). Before /api/:collection/count, so a collection named `count` can be watched.
  r('GET', '/api/subscribe/:collection', 'changes.subscribe'),

  // Goals, goal templates, tasks, agents (procedures/workflow.ts): before the chat session routes, and each literal
  // (`search`, `due`, `by-name`, `by-deployment`) before its {id} sibling (protocol.md 2.13, gotcha 11).
  r('POST', '/api/chat/goals', 'goals.create'),
  r('GET', '/api/chat/goals', 'goals.list'),
  r('GET', '/api/chat/goals/search', 'goals.search'),
  r('GET', '/api/chat/goals/:id', 'goals.get'),
  r('PUT', '/api/chat/goals/:id', 'goals.update'),
  r('DELETE', '/api/chat/goals/:id', 'goals.delete'),
  r('POST', '/api/chat/goals/:id/complete', 'goals.complete'),
  r('POST', '/api/chat/goals/:id/approve', 'goals.approve'),
  r('POST', '/api/chat/goals/:id/reject', 'goals.reject'),
  r('POST', '/api/chat/goals/:id/steps/:index/start', 'goals.steps.start'),
  r('POST', '/api/chat/goals/:id/steps/:index/complete', 'goals.steps.complete'),
  r('POST', '/api/chat/goals/:id/steps/:index/fail', 'goals.steps.fail'),
  r('POST', '/api/chat/goal-templates', 'goalTemplates.create'),
  r('GET', '/api/chat/goal-templates', 'goalTemplates.list'),
  r('GET', '/api/chat/goal-templates/:id', 'goalTemplates.get'),
  r('PUT', '/api/chat/goal-templates/:id', 'goalTemplates.update'),
  r('DELETE', '/api/chat/goal-templates/:id', 'goalTemplates.delete'),
  r('POST', '/api/chat/tasks', 'tasks.create'),
  r('GET', '/api/chat/tasks', 'tasks.list'),
  r('GET', '/api/chat/tasks/due', 'tasks.due'),
  r('GET', '/api/chat/tasks/:id', 'tasks.get'),
  r('PUT', '/api/chat/tasks/:id', 'tasks.update'),
  r('DELETE', '/api/chat/tasks/:id', 'tasks.delete'),
  r('POST', '/api/chat/tasks/:id/start', 'tasks.start'),
  r('POST', '/api/chat/tasks/:id/succeed', 'tasks.succeed'),
  r('POST', '/api/chat/tasks/:id/fail', 'tasks.fail'),
  r('POST', '/api/chat/tasks/:id/pause', 'tasks.pause'),
  r('POST', '/api/chat/tasks/:id/resume', 'tasks.resume'),
  r('POST', '/api/chat/agents', 'agents.create'),
  r('GET', '/api/chat/agents', 'agents.list'),
  r('GET', '/api/chat/agents/by-name/:name', 'agents.byName'),
  r('GET', '/api/chat/agents/by-deployment/:deploymentId', 'agents.byDeployment'),
  r('GET', '/api/chat/agents/:id', 'agents.get'),
  r('PUT', '/api/chat/agents/:id', 'agents.update'),
  r('DELETE', '/api/chat/agents/:id', 'agents.delete'),

  // Chat sessions and messages: literal segments under /api/chat/ before /api/chat/:chatId (protocol.md gotcha 11).
  r('POST', '/api/chat', 'chat.create'),
  r('GET', '/api/chat', 'chat.list'),
  r('POST', '/api/chat/branch', 'chat.branch'),
  r('POST', '/api/chat/merge', 'chat.merge'),
  r('GET', '/api/chat/tools', 'chat.tools.list'),
  r('POST', '/api/chat/tools/execute', 'chat.tools.execute'),
  r('GET', '/api/chat/:chatId', 'chat.get'),
  r('PUT', '/api/chat/:chatId', 'chat.update'),
  r('DELETE', '/api/chat/:chatId', 'chat.delete'),
  r('POST', '/api/chat/:chatId/messages', 'chat.send'),
  dataStream('POST', '/api/chat/:chatId/messages/stream', 'chat.sendStream'),
  r('GET', '/api/chat/:chatId/messages', 'chat.messages.list'),
  r('GET', '/api/chat/:chatId/messages/:msgId', 'chat.messages.get'),
  r('PUT', '/api/chat/:chatId/messages/:msgId', 'chat.messages.update'),
  r('DELETE', '/api/chat/:chatId/messages/:msgId', 'chat.messages.delete'),
  r('PATCH', '/api/chat/:chatId/messages/:msgId/forgotten', 'chat.messages.forgotten'),
  r('POST', '/api/chat/:chatId/messages/:msgId/regenerate', 'chat.messages.regenerate'),
  r('POST', '/api/chat/:chatId/compact', 'chat.compact'),
  r('POST', '/api/chat/:chatId/tool-result', 'chat.toolResult'),

  r('POST', '/api/embed', 'embed.create'),
  // Literal chat routes, before /api/chat/{chatId} (protocol.md gotcha 11).
  r('GET', '/api/chat_models', 'chat.models'),
  r('GET', '/api/chat_models/:provider', 'chat.models.provider'),
  r('POST', '/api/chat/complete', 'chat.complete'),
  dataStream('POST', '/api/chat/complete/stream', 'chat.completeStream'),
  r('POST', '/api/search/:collection', 'search.query'),
  r('POST', '/api/indexes/query/:collection', 'indexes.create', 201),
  r('GET', '/api/indexes/query/:collection', 'indexes.list'),
  r('DELETE', '/api/indexes/query/:collection/:field', 'indexes.drop'),
  r('POST', '/api/query/:collection/explain', 'query.explain'),

  r('POST', '/api/kv/set/:key', 'kv.set'),
  r('GET', '/api/kv/get/:key', 'kv.get'),
  r('DELETE', '/api/kv/delete/:key', 'kv.delete'),
  r('DELETE', '/api/kv/clear', 'kv.clear'),
  r('POST', '/api/kv/batch/get', 'kv.batchGet'),
  r('POST', '/api/kv/batch/set', 'kv.batchSet'),
  r('DELETE', '/api/kv/batch/delete', 'kv.batchDelete'),
  r('POST', '/api/kv/find', 'kv.find'),
  r('GET', '/api/kv/links/:key', 'kv.links'),
  r('POST', '/api/kv/link', 'kv.link'),
  r('POST', '/api/kv/unlink', 'kv.unlink'),

  // Schedules (procedures/workflow.ts; protocol.md 2.14): fired by the server's Scheduler.
  r('POST', '/api/schedules', 'schedules.create'),
  r('GET', '/api/schedules', 'schedules.list'),
  r('GET', '/api/schedules/:id', 'schedules.get'),
  r('PUT', '/api/schedules/:id', 'schedules.update'),
  r('DELETE', '/api/schedules/:id', 'schedules.delete'),
  r('POST', '/api/schedules/:id/pause', 'schedules.pause'),
  r('POST', '/api/schedules/:id/resume', 'schedules.resume'),
  r('GET', '/api/schedules/:id/runs', 'schedules.runs'),

  r('POST', '/api/functions', 'functions.create'),
  r('GET', '/api/functions', 'functions.list'),
  r('GET', '/api/functions/:id', 'functions.get'),
  r('PUT', '/api/functions/:id', 'functions.replace'),
  r('DELETE', '/api/functions/:id', 'functions.delete'),
  r('POST', '/api/functions/:id', 'functions.call'),
  // Path-routed functions: `:path+` takes the rest of the path (one or more segments).
  r('GET', '/api/route/:path+', 'functions.route.get'),
  r('POST', '/api/route/:path+', 'functions.route.post'),
  r('PUT', '/api/route/:path+', 'functions.route.put'),
  r('PATCH', '/api/route/:path+', 'functions.route.patch'),
  r('DELETE', '/api/route/:path+', 'functions.route.delete'),

  r('POST', '/api/insert/:collection', 'records.insert', 201),
  r('POST', '/api/find/:collection', 'records.find'),
  r('GET', '/api/find/:collection/:id', 'records.findById'),
  r('PUT', '/api/update/sequence/:collection/:id', 'records.updateSequence'),
  r('PUT', '/api/update/:collection/:id/action/:action', 'records.updateAction'),
  r('PUT', '/api/update/:collection/:id', 'records.update'),
  r('DELETE', '/api/delete/:collection/:id', 'records.delete'),
  r('POST', '/api/distinct/:collection/:field', 'records.distinct'),
  r('GET', '/api/:collection/count', 'records.count'),
];
