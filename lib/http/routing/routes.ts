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

const route = (method: string, path: string, procedure: string, status?: number): RouteDef<RouteTarget> => ({
  method,
  path,
  target: status ? { procedure, status } : { procedure },
});

/** A stream route framed as SSE `data:` lines (chat streams). */
const dataStream = (method: string, path: string, procedure: string): RouteDef<RouteTarget> => ({
  method,
  path,
  target: { procedure, sse: 'data' },
});

export const ROUTES: ReadonlyArray<RouteDef<RouteTarget>> = [
  route('GET', '/api/health', 'health.get'),
  route('GET', '/api/health/live', 'health.live'),
  route('GET', '/api/health/ready', 'health.ready'),
  route('GET', '/api/openapi.json', 'openapi.get'),
  route('GET', '/metrics', 'metrics.scrape'),
  route('POST', '/api/testing/reset', 'testing.reset'),
  route('POST', '/api/testing/checkpoints', 'testing.checkpoint', 201),
  route('POST', '/api/testing/checkpoints/:id/restore', 'testing.restore'),
  route('GET', '/api/testing/clock', 'testing.clock.get'),
  route('POST', '/api/testing/clock', 'testing.clock.move'),
  route('POST', '/api/auth/token', 'auth.token'),
  route('POST', '/api/auth/keys', 'keys.create', 201),
  route('GET', '/api/auth/keys', 'keys.list'),
  route('GET', '/api/auth/me', 'keys.me'),
  route('PUT', '/api/auth/keys/:id', 'keys.update'),
  route('DELETE', '/api/auth/keys/:id', 'keys.revoke'),
  route('GET', '/api/config', 'config.get'),
  route('PUT', '/api/config', 'config.update'),
  route('POST', '/api/admin/snapshot', 'admin.snapshot'),
  route('GET', '/api/admin/backup', 'admin.backup'),
  route('GET', '/api/admin/audit', 'audit.list'),
  route('POST', '/api/ripple/apply', 'ripple.apply'),
  route('GET', '/api/ripple/status', 'ripple.status'),
  route('POST', '/api/ripple/resync', 'ripple.resync'),

  route('POST', '/api/batch/insert/:collection', 'batch.insert'),
  route('PUT', '/api/batch/update/:collection', 'batch.update'),
  route('DELETE', '/api/batch/delete/:collection', 'batch.delete'),

  route('POST', '/api/transactions', 'transactions.begin'),
  route('GET', '/api/transactions', 'transactions.list'),
  route('GET', '/api/transactions/:id', 'transactions.status'),
  route('POST', '/api/transactions/:id/commit', 'transactions.commit'),
  route('POST', '/api/transactions/:id/rollback', 'transactions.rollback'),
  route('POST', '/api/transactions/:id/savepoints', 'savepoints.create'),
  route('POST', '/api/transactions/:id/savepoints/:name/rollback', 'savepoints.rollback'),
  route('DELETE', '/api/transactions/:id/savepoints/:name', 'savepoints.release'),

  route('GET', '/api/collections', 'collections.list'),
  route('POST', '/api/collections/:collection', 'collections.create', 201),
  route('GET', '/api/collections/:collection', 'collections.get'),
  route('DELETE', '/api/collections/:collection', 'collections.delete'),
  route('GET', '/api/schemas/:collection', 'schemas.get'),
  route('PUT', '/api/schemas/:collection', 'schemas.update'),
  route('PUT', '/api/schemas/:collection/primary-key-alias', 'schemas.setPrimaryKeyAlias'),
  route('GET', '/api/trash/:collection', 'trash.list'),
  route('POST', '/api/trash/:collection/:id', 'trash.restore'),
  route('POST', '/api/trash/:collection', 'trash.restoreCollection'),

  // A stream: served as server-sent events (transport/sse.ts). Before /api/:collection/count, so a collection named
  // `count` can be watched.
  route('GET', '/api/subscribe/:collection', 'changes.subscribe'),

  // Goals, goal templates, tasks, agents (procedures/workflow.ts): before the chat session routes, and each literal
  // (`search`, `due`, `by-name`, `by-deployment`) before its {id} sibling (protocol.md 2.13, gotcha 11).
  route('POST', '/api/chat/goals', 'goals.create'),
  route('GET', '/api/chat/goals', 'goals.list'),
  route('GET', '/api/chat/goals/search', 'goals.search'),
  route('GET', '/api/chat/goals/:id', 'goals.get'),
  route('PUT', '/api/chat/goals/:id', 'goals.update'),
  route('DELETE', '/api/chat/goals/:id', 'goals.delete'),
  route('POST', '/api/chat/goals/:id/complete', 'goals.complete'),
  route('POST', '/api/chat/goals/:id/approve', 'goals.approve'),
  route('POST', '/api/chat/goals/:id/reject', 'goals.reject'),
  route('POST', '/api/chat/goals/:id/steps/:index/start', 'goals.steps.start'),
  route('POST', '/api/chat/goals/:id/steps/:index/complete', 'goals.steps.complete'),
  route('POST', '/api/chat/goals/:id/steps/:index/fail', 'goals.steps.fail'),
  route('POST', '/api/chat/goal-templates', 'goalTemplates.create'),
  route('GET', '/api/chat/goal-templates', 'goalTemplates.list'),
  route('GET', '/api/chat/goal-templates/:id', 'goalTemplates.get'),
  route('PUT', '/api/chat/goal-templates/:id', 'goalTemplates.update'),
  route('DELETE', '/api/chat/goal-templates/:id', 'goalTemplates.delete'),
  route('POST', '/api/chat/tasks', 'tasks.create'),
  route('GET', '/api/chat/tasks', 'tasks.list'),
  route('GET', '/api/chat/tasks/due', 'tasks.due'),
  route('GET', '/api/chat/tasks/:id', 'tasks.get'),
  route('PUT', '/api/chat/tasks/:id', 'tasks.update'),
  route('DELETE', '/api/chat/tasks/:id', 'tasks.delete'),
  route('POST', '/api/chat/tasks/:id/start', 'tasks.start'),
  route('POST', '/api/chat/tasks/:id/succeed', 'tasks.succeed'),
  route('POST', '/api/chat/tasks/:id/fail', 'tasks.fail'),
  route('POST', '/api/chat/tasks/:id/pause', 'tasks.pause'),
  route('POST', '/api/chat/tasks/:id/resume', 'tasks.resume'),
  route('POST', '/api/chat/agents', 'agents.create'),
  route('GET', '/api/chat/agents', 'agents.list'),
  route('GET', '/api/chat/agents/by-name/:name', 'agents.byName'),
  route('GET', '/api/chat/agents/by-deployment/:deploymentId', 'agents.byDeployment'),
  route('GET', '/api/chat/agents/:id', 'agents.get'),
  route('PUT', '/api/chat/agents/:id', 'agents.update'),
  route('DELETE', '/api/chat/agents/:id', 'agents.delete'),

  // Chat sessions and messages: literal segments under /api/chat/ before /api/chat/:chatId (protocol.md gotcha 11).
  route('POST', '/api/chat', 'chat.create'),
  route('GET', '/api/chat', 'chat.list'),
  route('POST', '/api/chat/branch', 'chat.branch'),
  route('POST', '/api/chat/merge', 'chat.merge'),
  route('GET', '/api/chat/tools', 'chat.tools.list'),
  route('POST', '/api/chat/tools/execute', 'chat.tools.execute'),
  route('GET', '/api/chat/:chatId', 'chat.get'),
  route('PUT', '/api/chat/:chatId', 'chat.update'),
  route('DELETE', '/api/chat/:chatId', 'chat.delete'),
  route('POST', '/api/chat/:chatId/messages', 'chat.send'),
  dataStream('POST', '/api/chat/:chatId/messages/stream', 'chat.sendStream'),
  route('GET', '/api/chat/:chatId/messages', 'chat.messages.list'),
  route('GET', '/api/chat/:chatId/messages/:msgId', 'chat.messages.get'),
  route('PUT', '/api/chat/:chatId/messages/:msgId', 'chat.messages.update'),
  route('DELETE', '/api/chat/:chatId/messages/:msgId', 'chat.messages.delete'),
  route('PATCH', '/api/chat/:chatId/messages/:msgId/forgotten', 'chat.messages.forgotten'),
  route('POST', '/api/chat/:chatId/messages/:msgId/regenerate', 'chat.messages.regenerate'),
  route('POST', '/api/chat/:chatId/compact', 'chat.compact'),
  route('POST', '/api/chat/:chatId/tool-result', 'chat.toolResult'),

  route('POST', '/api/embed', 'embed.create'),
  // Literal chat routes, before /api/chat/{chatId} (protocol.md gotcha 11).
  route('GET', '/api/chat_models', 'chat.models'),
  route('GET', '/api/chat_models/:provider', 'chat.models.provider'),
  route('POST', '/api/chat/complete', 'chat.complete'),
  dataStream('POST', '/api/chat/complete/stream', 'chat.completeStream'),
  route('POST', '/api/search/:collection', 'search.query'),
  route('POST', '/api/indexes/query/:collection', 'indexes.create', 201),
  route('GET', '/api/indexes/query/:collection', 'indexes.list'),
  route('DELETE', '/api/indexes/query/:collection/:field', 'indexes.drop'),
  route('POST', '/api/query/:collection/explain', 'query.explain'),

  route('POST', '/api/kv/set/:key', 'kv.set'),
  route('GET', '/api/kv/get/:key', 'kv.get'),
  route('DELETE', '/api/kv/delete/:key', 'kv.delete'),
  route('DELETE', '/api/kv/clear', 'kv.clear'),
  route('POST', '/api/kv/batch/get', 'kv.batchGet'),
  route('POST', '/api/kv/batch/set', 'kv.batchSet'),
  route('DELETE', '/api/kv/batch/delete', 'kv.batchDelete'),
  route('POST', '/api/kv/find', 'kv.find'),
  route('GET', '/api/kv/links/:key', 'kv.links'),
  route('POST', '/api/kv/link', 'kv.link'),
  route('POST', '/api/kv/unlink', 'kv.unlink'),

  // Schedules (procedures/workflow.ts; protocol.md 2.14): fired by the server's Scheduler.
  route('POST', '/api/schedules', 'schedules.create'),
  route('GET', '/api/schedules', 'schedules.list'),
  route('GET', '/api/schedules/:id', 'schedules.get'),
  route('PUT', '/api/schedules/:id', 'schedules.update'),
  route('DELETE', '/api/schedules/:id', 'schedules.delete'),
  route('POST', '/api/schedules/:id/pause', 'schedules.pause'),
  route('POST', '/api/schedules/:id/resume', 'schedules.resume'),
  route('GET', '/api/schedules/:id/runs', 'schedules.runs'),

  route('POST', '/api/functions', 'functions.create'),
  route('GET', '/api/functions', 'functions.list'),
  route('GET', '/api/functions/:id', 'functions.get'),
  route('PUT', '/api/functions/:id', 'functions.replace'),
  route('DELETE', '/api/functions/:id', 'functions.delete'),
  route('POST', '/api/functions/:id', 'functions.call'),
  // Path-routed functions: `:path+` takes the rest of the path (one or more segments).
  route('GET', '/api/route/:path+', 'functions.route.get'),
  route('POST', '/api/route/:path+', 'functions.route.post'),
  route('PUT', '/api/route/:path+', 'functions.route.put'),
  route('PATCH', '/api/route/:path+', 'functions.route.patch'),
  route('DELETE', '/api/route/:path+', 'functions.route.delete'),

  route('POST', '/api/insert/:collection', 'records.insert', 201),
  route('POST', '/api/find/:collection', 'records.find'),
  route('GET', '/api/find/:collection/:id', 'records.findById'),
  route('PUT', '/api/update/sequence/:collection/:id', 'records.updateSequence'),
  route('PUT', '/api/update/:collection/:id/action/:action', 'records.updateAction'),
  route('PUT', '/api/update/:collection/:id', 'records.update'),
  route('DELETE', '/api/delete/:collection/:id', 'records.delete'),
  route('POST', '/api/distinct/:collection/:field', 'records.distinct'),
  route('GET', '/api/:collection/count', 'records.count'),
];
