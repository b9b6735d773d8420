/**
 * The registry of open transactions (transaction-registry.ts): ids and
 * owners, activity and expiry, listing, and the audit trail of each
 * transaction's life, written to a real audit.log in a temp dir.
 */
import { expect } from 'chai';
import { AuditLog } from '../../../lib/engine/transactions/audit.js';
import { TransactionRegistry } from '../../../lib/engine/transactions/transaction-registry.js';
import type { Transaction } from '../../../lib/engine/transactions/transaction.js';
import { ManualClock, nodeFs } from '../../../lib/engine/index.js';
import { InvalidInput, NotFound } from '../../../lib/errors.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

describe('engine/transactions/transaction-registry', () => {
  let dir: string;
  let clock: ManualClock;
  let audit: AuditLog;
  let ended: string[];
  let registry: TransactionRegistry;
  beforeEach(() => {
    dir = tempDir();
    clock = new ManualClock();
    audit = new AuditLog(nodeFs, dir, clock);
    ended = [];
    registry = new TransactionRegistry(
      () => clock.now(),
      audit,
      (tx: Transaction) => ended.push(tx.id),
    );
  });
  afterEach(async () => {
    registry.stopCleanup();
    await audit.close();
    removeDir(dir);
  });

  const alice = { keyId: 'alice', admin: false },
    bob = { keyId: 'bob', admin: false },
    admin = { keyId: 'root', admin: true };

  it('hands out a transaction by id, counting each use as activity but not a status read', () => {
    const tx = registry.open('ReadCommitted', 60, 'alice');
    clock.advance(5_000);
    expect(registry.status(tx.id).last_activity).to.equal(Math.floor(tx.createdAt / 1000));
    expect(registry.get(tx.id)).to.equal(tx);
    expect(registry.status(tx.id)).to.include({
      transaction_id: tx.id,
      state: 'Active',
      isolation_level: 'ReadCommitted',
      timeout_seconds: 60,
      last_activity: Math.floor(clock.now() / 1000),
    });
  });

  it('answers NotFound for an unknown id and InvalidInput once expired, until cleanup forgets it', () => {
    expect(() => registry.get('nope')).to.throw(NotFound);
    const tx = registry.open('Serializable', 1);
    clock.advance(1_000);
    expect(() => registry.get(tx.id)).to.throw(InvalidInput);
    expect(registry.list()).to.deep.equal([]);
    expect(registry.cleanupExpired()).to.equal(1);
    expect(ended).to.deep.equal([tx.id]);
    expect(() => registry.get(tx.id)).to.throw(NotFound);
  });

  it('lets only the owner or an admin use or list a transaction', () => {
    const mine = registry.open('ReadCommitted', 60, 'alice');
    const open = registry.open('ReadCommitted', 60);
    expect(() => registry.checkOwner(mine.id, bob)).to.throw(NotFound);
    expect(() => registry.checkOwner(mine.id, alice)).to.not.throw();
    expect(() => registry.checkOwner(mine.id, admin)).to.not.throw();
    expect(() => registry.checkOwner('unknown', bob), 'an unknown id is answered by the statement').to.not.throw();
    expect(registry.list(bob).map((s) => s.transaction_id)).to.deep.equal([open.id]);
    expect(registry.list(alice).map((s) => s.transaction_id)).to.deep.equal([mine.id, open.id]);
    expect(registry.list(admin)).to.have.length(2);
  });

  it('take removes the transaction, so a second commit or rollback finds nothing', () => {
    const tx = registry.open('ReadCommitted', 60);
    expect(registry.take(tx.id)).to.equal(tx);
    expect(() => registry.take(tx.id)).to.throw(NotFound);
    expect(ended, 'take leaves releasing to the caller').to.deep.equal([]);
  });

  it("writes each event of a transaction's life to the audit trail with its operation count", async () => {
    const tx = registry.open('RepeatableRead', 1);
    registry.audit('savepoint_create', tx, { savepoint: 'sp' });
    registry.audit('commit_failed', tx, { error: 'boom' });
    clock.advance(1_000);
    registry.cleanupExpired();
    const events = (await audit.read()).reverse().map(({ timestamp: _t, ...e }) => e);
    expect(events).to.deep.equal([
      { event: 'begin', transaction_id: tx.id, isolation_level: 'RepeatableRead', operations_count: 0 },
      {
        event: 'savepoint_create',
        transaction_id: tx.id,
        savepoint: 'sp',
        isolation_level: 'RepeatableRead',
        operations_count: 0,
      },
      {
        event: 'commit_failed',
        transaction_id: tx.id,
        isolation_level: 'RepeatableRead',
        operations_count: 0,
        error: 'boom',
      },
      { event: 'expired', transaction_id: tx.id, isolation_level: 'RepeatableRead', operations_count: 0 },
    ]);
  });
});
