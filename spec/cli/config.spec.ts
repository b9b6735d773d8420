/** Server options from flags and the environment: the failed-login limit and proxy trust (issue 8). */
import { expect } from 'chai';
import { parseArgs, serverConfig } from '../../lib/cli/config.js';

describe('serverConfig', () => {
  it('leaves the failed-login limit and proxy trust to the server defaults when unset', () => {
    const c = serverConfig(parseArgs(['start']), {});
    expect(c.authFailureLimit).to.equal(undefined);
    expect(c.authFailureWindowSecs).to.equal(undefined);
    expect(c.trustProxy).to.equal(false);
  });

  it('reads them from the environment, and flags win over it', () => {
    const env = { EDDYDB_AUTH_FAILURE_LIMIT: '5', EDDYDB_AUTH_FAILURE_WINDOW: '300', EDDYDB_TRUST_PROXY: '1' };
    expect(serverConfig(parseArgs(['start']), env)).to.include({ authFailureLimit: 5, authFailureWindowSecs: 300, trustProxy: true });
    const c = serverConfig(parseArgs(['start', '--auth-failure-limit', '0', '--trust-proxy']), { EDDYDB_AUTH_FAILURE_LIMIT: '5' });
    expect(c).to.include({ authFailureLimit: 0, trustProxy: true });
  });

  it('refuses a limit that is not a number', () => {
    expect(() => serverConfig(parseArgs(['start', '--auth-failure-limit', 'many']), {})).to.throw('auth failure limit must be a number');
  });
});
