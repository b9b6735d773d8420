/**
 * The per-request context handed to procedures. It holds the engine and the
 * caller, never the transport's request or response objects.
 */
import type { Database, Session } from '../../engine/index.js';
import type { Principal } from '../auth/principal.js';

export type { Principal, TokenGrant } from '../auth/principal.js';

export interface Services {
  readonly db: Database;
  readonly tokens: import('../auth/tokens.js').TokenService;
  /** The server's logger (log/server-log.ts): `extra` is an Error (the cause) or structured fields. */
  readonly log: import('../log/server-log.js').ServerLog;
  readonly startedAt: number;
  readonly batchGate: import('./records/batch-gate.js').BatchGate;
  readonly ripples: import('../ripple/ripple-manager.js').RippleManager;
  /** Failed token exchanges per client address (brute-force protection). */
  readonly authFailures: import('../auth/auth-failures.js').AuthFailureLimiter;
  /** Subscriptions to committed changes (stream procedures). */
  readonly changes: import('../../engine/index.js').ChangeNotifier;
  /** Stored functions: definitions and calls. */
  readonly functions: import('../../functions/index.js').StoredFunctions;
  /** Chat sessions and messages (retrieval, provider calls through the provider directory). */
  readonly chat: import('../../chat/index.js').ChatService;
  /** Goals, goal templates, tasks, agents and schedules. */
  readonly workflow: import('../../workflow/index.js').Workflow;
  readonly version: string;
}

export interface Context extends Services {
  readonly principal: Principal | undefined;
  readonly requestId: string;
  /** Typed (`{type, value}`) or bare record output, from the `use_typed_values` setting. */
  readonly typed: boolean;
  /** Where an HTTP request came from (client-address.ts); undefined on other transports. */
  readonly clientAddress: string | undefined;
  /** Where statements run (auto-commit, or the procedure's transaction): set by the gate in callProcedure. */
  session: Session;
  /** Fires when the caller is gone or cancelled (a stream's client closed or unsubscribed); never for a single answer today. */
  readonly signal: AbortSignal;
}
