import assert from 'node:assert/strict';
import { connect } from '../src/accounts.js';
import { eddy } from './hooks.js';

describe('sign-up', () => {
  let accounts;
  before(async () => {
    accounts = await connect({ url: eddy().url, apiKey: eddy().adminKey });
  });

  it('finds a user from the fixtures', async () => {
    assert.equal((await accounts.findByEmail('ann@example.com')).name, 'Ann');
  });

  it('signs a new user up', async () => {
    await accounts.signUp('cy@example.com', 'Cy');
    assert.equal((await accounts.findByEmail('cy@example.com')).name, 'Cy');
    assert.equal(await accounts.countUsers(), 3);
  });

  it('starts every test from the fixtures: the user signed up above is gone', async () => {
    assert.equal(await accounts.findByEmail('cy@example.com'), undefined);
    assert.equal(await accounts.countUsers(), 2);
  });

  it('refuses an email already taken', async () => {
    await assert.rejects(accounts.signUp('ann@example.com', 'Another Ann'), /unique/i);
  });
});
