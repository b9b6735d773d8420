/** The metrics port's options: off unless asked, from a flag or the environment, its host loopback by default. */
import { expect } from 'chai';
import { startConfig } from '../../lib/cli/config.js';

describe('cli: the metrics port options', () => {
  it('leaves the metrics port off by default', () => {
    const c = startConfig(['start'], {});
    expect(c.metricsPort).to.equal(undefined);
    expect(c.metricsHost).to.equal(undefined);
  });

  it('takes --metrics-port and --metrics-host, or EDDYDB_METRICS_PORT and EDDYDB_METRICS_HOST; a flag wins', () => {
    expect(startConfig(['start', '--metrics-port', '9464'], {})).to.include({ metricsPort: 9464 });
    const env = { EDDYDB_METRICS_PORT: '9100', EDDYDB_METRICS_HOST: '0.0.0.0' };
    expect(startConfig(['start'], env)).to.include({ metricsPort: 9100, metricsHost: '0.0.0.0' });
    expect(startConfig(['start', '--metrics-port', '9464', '--metrics-host', '::1'], env)).to.include({
      metricsPort: 9464,
      metricsHost: '::1',
    });
  });

  it('refuses a metrics port that is not a port number, saying which option', () => {
    expect(() => startConfig(['start', '--metrics-port', '70000'], {})).to.throw(/metrics-port/);
    expect(() => startConfig(['start'], { EDDYDB_METRICS_PORT: 'nine' })).to.throw(/METRICS_PORT|metrics-port/);
  });
});
