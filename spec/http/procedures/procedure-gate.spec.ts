/**
 * The gate in callProcedure, in process: a procedure's scope is checked
 * (collections, join targets included) and `ctx.session` is built from it
 * before the handler runs; a transaction of another key is refused there.
 */
import { expect } from 'chai';
import { Database, isTransactionSession, type ApiKeyRecord, type Session } from '../../../lib/engine/index.js';
import { Forbidden, MESSAGES, NotFound } from '../../../lib/errors.js';
import type { Context, Principal } from '../../../lib/http/procedures/context.js';
import {
  buildRegistry,
  callProcedure,
  defineProcedure,
  type RawInput,
} from '../../../lib/http/procedures/procedure.js';
import { engineServices } from '../../../lib/http/server.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

function principal(keyId: string, perms?: ApiKeyRecord['collection_permissions']): Principal {
  const key: ApiKeyRecord = {
    id: keyId,
    name: keyId,
    hash: '',
    admin: false,
    created_at: '',
    ...(perms ? { collection_permissions: perms } : {}),
  };
  return { keyId, admin: false, key, grant: { keyId, kfp: '', expMs: 0 } };
}

describe('http/procedure gate', () => {
  let dir: string;
  let db: Database;
  let seen: Session | undefined;
  const raw = (query: Record<string, string> = {}): RawInput => ({ args: query, body: undefined });
  const registry = buildRegistry([
    defineProcedure({
      name: 'probe.read',
      kind: 'query',
      access: 'user',
      input: (r) => ({ tx: r.args.tx as string | undefined, joins: r.args.join ? [r.args.join as string] : [] }),
      scope: (i) => ({
        collections: ['orders', ...i.joins].map((name) => ({ name, mode: 'read' as const })),
        transaction: i.tx,
      }),
      handler: (_i, ctx) => {
        seen = ctx.session;
        return 'ran';
      },
    }),
  ]);
  const ctxFor = (principal: Principal | undefined) =>
    ({ ...engineServices(db), principal, session: db.session(principal) }) as unknown as Context;

  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
    seen = undefined;
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('hands an auto-commit session to a procedure that names no transaction', async () => {
    expect(await callProcedure(registry, 'probe.read', raw(), ctxFor(principal('ann')))).to.equal('ran');
    expect(seen!.transactionId).to.equal(undefined);
  });

  it('opens the transaction the scope names for its owner', async () => {
    const ann = principal('ann');
    const tx = db.transactions.begin(undefined, undefined, ann.keyId);
    await callProcedure(registry, 'probe.read', raw({ tx: tx.id }), ctxFor(ann));
    expect(isTransactionSession(seen!)).to.equal(true);
    expect(seen!.transactionId).to.equal(tx.id);
  });

  it("refuses another key's transaction before the handler runs, as an unknown transaction", async () => {
    const tx = db.transactions.begin(undefined, undefined, 'ann');
    let err: unknown;
    try {
      await callProcedure(registry, 'probe.read', raw({ tx: tx.id }), ctxFor(principal('bob')));
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(NotFound).with.property('message', MESSAGES.transactionNotFound);
    expect(seen).to.equal(undefined);
  });

  it('checks every collection of the scope, join targets included, before the handler runs', async () => {
    const limited = principal('carol', { orders: { read: true, write: false } });
    expect(await callProcedure(registry, 'probe.read', raw(), ctxFor(limited))).to.equal('ran');
    seen = undefined;
    let err: unknown;
    try {
      await callProcedure(registry, 'probe.read', raw({ join: 'secrets' }), ctxFor(limited));
    } catch (e) {
      err = e;
    }
    expect(err)
      .to.be.instanceOf(Forbidden)
      .with.property('message', "This API key has no access to collection 'secrets'");
    expect(seen).to.equal(undefined);
  });
});
