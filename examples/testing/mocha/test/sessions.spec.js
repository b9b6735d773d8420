import assert from 'node:assert/strict';
import { connect } from '../src/accounts.js';
import { eddy } from './hooks.js';

describe('sessions and sign-in codes', () => {
  let accounts;
  before(async () => {
    accounts = await connect({ url: eddy().url, apiKey: eddy().adminKey });
  });

  it('keeps a session for 30 minutes, without the test waiting for them', async () => {
    const ann = await accounts.findByEmail('ann@example.com');
    const session = await accounts.startSession(ann.id);
    await eddy().clock.advance('29m');
    assert.equal(await accounts.sessionUser(session), ann.id);
    await eddy().clock.advance('2m');
    assert.equal(await accounts.sessionUser(session), undefined);
  });

  it('accepts a sign-in code for 10 minutes', async () => {
    const code = await accounts.issueCode('bob@example.com');
    assert.equal(await accounts.checkCode('bob@example.com', code), true);
    await eddy().clock.advance('11m');
    assert.equal(await accounts.checkCode('bob@example.com', code), false);
  });
});
