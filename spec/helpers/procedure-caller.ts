/**
 * Calls procedures in process, without HTTP or sockets: a real Database in
 * a temp dir, the real registry, and the Dispatcher's one entry point
 * (`call`, `openStream`), as the WebSocket transport uses it.
 */
import { ChangeNotifier, Database, ManualClock, parseKeyRequest } from '../../lib/engine/index.js';
import { Dispatcher } from '../../lib/http/index.js';
import { engineServices } from '../../lib/http/server.js';
import { StoredFunctions } from '../../lib/functions/index.js';
import { ChatService, embedderFor, NO_PROVIDERS } from '../../lib/chat/index.js';
import { Workflow } from '../../lib/workflow/index.js';
import { TokenService } from '../../lib/http/auth/tokens.js';
import { BatchGate } from '../../lib/http/procedures/records/batch-gate.js';
import { AuthFailureLimiter } from '../../lib/http/auth/auth-failures.js';
import { unwrapRecord } from '../../lib/http/wire/wire-record.js';
import { RippleManager } from '../../lib/http/ripple/ripple-manager.js';
import { ServerMetrics } from '../../lib/http/metrics/index.js';
import { createRegistry } from '../../lib/http/procedures/index.js';
import type { Principal, Services } from '../../lib/http/procedures/context.js';
import type { LogLevel } from '../../lib/http/log/server-log.js';
import { removeDir, tempDir } from './temp-dir.js';

export interface LoggedLine {
  level: LogLevel;
  msg: string;
  extra: unknown;
}

export const ADMIN_SECRET = 'in-process-admin-key-0123456789';

export class ProcedureCaller {
  private constructor(
    readonly db: Database,
    readonly dir: string,
    readonly services: Services,
    readonly dispatcher: Dispatcher,
    /** What the server would have logged. */
    readonly logged: LoggedLine[],
  ) {}

  static async open(): Promise<ProcedureCaller> {
    const dir = tempDir();
    const db = await Database.open({ dataDir: dir, clock: new ManualClock(), settings: { durability: 'none' } });
    await db.keys.ensureAdmin(ADMIN_SECRET);
    const logged: LoggedLine[] = [];
    const log = (level: LogLevel, msg: string, extra?: unknown) => {
      logged.push({ level, msg, extra });
    };
    const services: Services = {
      ...engineServices(db),
      tokens: new TokenService(db),
      log,
      startedAt: Date.now(),
      version: 'test',
      batchGate: new BatchGate(),
      ripples: new RippleManager(db, [], undefined, log),
      authFailures: new AuthFailureLimiter({ limit: 10, windowSecs: 60 }, log),
      changes: new ChangeNotifier(db),
      functions: new StoredFunctions(db),
      chat: new ChatService({
        providers: NO_PROVIDERS,
        embedder: () => embedderFor(db.settings()),
        now: () => db.now(),
      }),
      workflow: new Workflow(() => db.now()),
      testing: { control: undefined },
      lifecycle: { closing: false },
      metrics: new ServerMetrics('test'),
    };
    return new ProcedureCaller(db, dir, services, new Dispatcher(services, createRegistry(), 1024 * 1024), logged);
  }

  /** The caller of the admin key, or of a new key made from `key` (the body of POST /api/auth/keys). */
  async principal(key?: Record<string, unknown>): Promise<Principal> {
    const secret = key ? (await this.db.keys.create(parseKeyRequest(key))).key : ADMIN_SECRET;
    const { token } = await this.services.tokens.issue(secret);
    return this.services.tokens.authenticate(`Bearer ${token}`);
  }

  call(
    procedure: string,
    principal: Principal,
    args: Record<string, unknown> = {},
    body: unknown = {},
  ): Promise<unknown> {
    return this.dispatcher.call(procedure, { args, body }, principal).then(unwrapRecord);
  }

  async close(): Promise<void> {
    this.services.ripples.stop();
    await this.db.close();
    removeDir(this.dir);
  }
}
