/**
 * CreateSavepoint, RollbackToSavepoint, ReleaseSavepoint: the function's
 * transaction marks a point, rewinds its staged writes to it, or forgets it.
 * Only in a transactional function (a 400 at save otherwise); the working
 * records pass through unchanged.
 */
import { InvalidInput } from '../../../errors.js';
import { isSavepointName, isTransactionSession, type TransactionSession } from '../../../engine/index.js';
import { step, type MemberReader, type StepType } from '../step.js';

function compileName(m: MemberReader): { readonly name: string } {
  if (!m.transactional) m.fail('savepoint steps need a transactional function (transaction_config.enabled)');
  const name = m.string('name');
  if (!isSavepointName(name)) m.fail('must be 1-128 characters', 'name');
  return { name };
}

function savepointStep(type: string, act: (s: TransactionSession, name: string) => Promise<unknown>): StepType<unknown> {
  return step<{ readonly name: string }>({
    type,
    access: 'write',
    compile: compileName,
    run: async (cfg, rows, x) => {
      if (!isTransactionSession(x.session)) throw new InvalidInput(`${type} runs only inside a transaction`);
      await act(x.session, cfg.name);
      return rows;
    },
  });
}

export const createSavepoint = savepointStep('CreateSavepoint', (s, name) => s.savepoint(name));
export const rollbackToSavepoint = savepointStep('RollbackToSavepoint', (s, name) => s.rollbackTo(name));
export const releaseSavepoint = savepointStep('ReleaseSavepoint', (s, name) => s.release(name));
