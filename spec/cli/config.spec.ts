/**
 * Server options from flags and the environment: the failed-login limit and proxy trust, value checks.
 */
import { expect } from 'chai';
import { startConfig } from '../../lib/cli/config.js';
import { UsageError } from '../../lib/cli/args/option-values.js';

describe('serverConfig', () => {
  it('leaves the failed-login limit and proxy trust to the server defaults when unset', () => {
    const c = startConfig(['start'], {});
    expect(c.authFailureLimit).to.equal(undefined);
    expect(c.authFailureWindowSecs).to.equal(undefined);
    expect(c.trustProxy).to.equal(false);
  });

  it('reads them from the environment, and flags win over it', () => {
    const env = { EDDYDB_AUTH_FAILURE_LIMIT: '5', EDDYDB_AUTH_FAILURE_WINDOW: '300', EDDYDB_TRUST_PROXY: '1' };
    expect(startConfig(['start'], env)).to.include({
      authFailureLimit: 5,
      authFailureWindowSecs: 300,
      trustProxy: true,
    });
    const c = startConfig(['start', '--auth-failure-limit', '0', '--trust-proxy'], { EDDYDB_AUTH_FAILURE_LIMIT: '5' });
    expect(c).to.include({ authFailureLimit: 0, trustProxy: true });
  });

  it('fires schedules unless --no-schedules or EDDYDB_NO_SCHEDULES says not to', () => {
    expect(startConfig(['start'], {}).runSchedules).to.equal(true);
    expect(startConfig(['start', '--no-schedules'], {}).runSchedules).to.equal(false);
    expect(startConfig(['start'], { EDDYDB_NO_SCHEDULES: '1' }).runSchedules).to.equal(false);
  });

  it('reads the {{env.NAME}} allow-list of stored functions from EDDYDB_FUNCTION_ENV or --function-env', () => {
    expect(startConfig(['start'], {}).functionEnv).to.deep.equal([]);
    expect(startConfig(['start'], { EDDYDB_FUNCTION_ENV: ' JWT_SECRET, HMAC_KEY ,,' }).functionEnv).to.deep.equal([
      'JWT_SECRET',
      'HMAC_KEY',
    ]);
    expect(
      startConfig(['start', '--function-env', 'DATA_KEY'], { EDDYDB_FUNCTION_ENV: 'JWT_SECRET' }).functionEnv,
    ).to.deep.equal(['DATA_KEY']);
  });

  it('refuses a limit that is not a number, naming the flag or the variable', () => {
    expect(() => startConfig(['start', '--auth-failure-limit', 'many'], {})).to.throw(
      "invalid value for --auth-failure-limit: 'many' (a whole number from 0 to 1000000)",
    );
    expect(() => startConfig(['start'], { PORT: 'http' })).to.throw(
      "invalid value for PORT: 'http' (a whole number from 0 to 65535)",
    );
  });

  it('starts with the defaults when nothing is given: port 8080 on every interface, ./data, snapshots hourly', () => {
    const c = startConfig([], {});
    expect(c).to.include({ port: 8080, host: '0.0.0.0', snapshotCron: undefined, quiet: false, salvage: false });
    expect(c.dataDir).to.match(/[/\\]data$/);
  });

  it('takes an empty EDDYDB_SNAPSHOT_CRON as "no scheduled snapshots" and refuses a schedule that is not one', () => {
    expect(startConfig(['start'], { EDDYDB_SNAPSHOT_CRON: '' }).snapshotCron).to.equal('');
    expect(() => startConfig(['start', '--snapshot-cron', 'every hour'], {})).to.throw(
      "invalid value for --snapshot-cron: 'every hour'",
    );
    expect(() => startConfig(['start', '--snapshot-cron', '0 0 31 2 *'], {})).to.throw('never matches');
    // The server's one cron dialect: the same expressions as schedules and tasks.
    expect(startConfig(['start', '--snapshot-cron', '@hourly'], {}).snapshotCron).to.equal('@hourly');
    expect(startConfig(['start', '--snapshot-cron', '*/30 0 * * * *'], {}).snapshotCron).to.equal('*/30 0 * * * *');
  });

  it('maps the settings flags onto server settings and never echoes a peer key in an error', () => {
    const c = startConfig(['--durability', 'batch', '--token-ttl', '120', '--ripple-peers', 'http://b:8080/|secret'], {
      OPENAI_BASE_URL: 'http://llm/',
    });
    expect(c.settings).to.deep.equal({ durability: 'batch', token_ttl_secs: 120, openai_api_url: 'http://llm' });
    expect(c.ripplePeers).to.deep.equal([{ url: 'http://b:8080', key: 'secret' }]);
    const message = (() => {
      try {
        startConfig(['--ripple-peers', 'ftp://b|topsecret'], {});
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message)
      .to.include("ripple peer url 'ftp://b' must start with http:// or https://")
      .and.not.include('topsecret');
  });

  it('reads the outbound allow-list and the e-mail settings, refusing a bad host entry', () => {
    const c = startConfig(['start', '--outbound-allow-hosts', '127.0.0.1, *.corp.internal,10.0.0.0/8'], {
      EDDYDB_OUTBOUND_ALLOW_PRIVATE: '0',
      EDDYDB_SMTP_HOST: 'mail.local',
      EDDYDB_SMTP_PORT: '2525',
      EDDYDB_SMTP_SECURE: '1',
      EDDYDB_SMTP_USER: 'u',
      EDDYDB_SMTP_PASSWORD: 'p',
      EDDYDB_SENDGRID_API_URL: 'http://127.0.0.1:9/',
    });
    expect(c.settings).to.deep.include({
      outbound_allow_hosts: ['127.0.0.1', '*.corp.internal', '10.0.0.0/8'],
      outbound_allow_private: false,
      smtp_host: 'mail.local',
      smtp_port: 2525,
      smtp_secure: true,
      smtp_user: 'u',
      smtp_password: 'p',
      sendgrid_api_url: 'http://127.0.0.1:9',
    });
    expect(() => startConfig(['start'], { EDDYDB_OUTBOUND_ALLOW_HOSTS: 'ok.example,bad host' })).to.throw(/'bad host'/);
  });

  describe('memory only', () => {
    it('runs memory only with --memory or EDDYDB_MEMORY=1, with no data directory', () => {
      for (const c of [startConfig(['start', '--memory'], {}), startConfig(['start'], { EDDYDB_MEMORY: '1' })]) {
        expect(c.memory).to.equal(true);
        expect(c.dataDir).to.equal(undefined);
      }
      const disk = startConfig(['start'], { EDDYDB_MEMORY: '0' });
      expect(disk.memory).to.equal(undefined);
      expect(disk.dataDir).to.match(/[/\\]data$/);
    });

    it('refuses a data directory given with it, by flag or variable, saying which to drop', () => {
      const message =
        '--memory writes nothing to disk, so it takes no data directory: drop --data-dir (or EDDYDB_DATA_DIR) to run ' +
        'in memory, or drop --memory (or EDDYDB_MEMORY) to keep the data in that directory';
      expect(() => startConfig(['start', '--memory', '--data-dir', '/srv/data'], {})).to.throw(UsageError, message);
      expect(() => startConfig(['start', '--memory'], { EDDYDB_DATA_DIR: '/srv/data' })).to.throw(UsageError, message);
      expect(() => startConfig(['start', '--data-dir', '/srv/data'], { EDDYDB_MEMORY: '1' })).to.throw(
        UsageError,
        message,
      );
    });

    it('refuses ripple peers with it: they read the log', () => {
      expect(() => startConfig(['start', '--memory', '--ripple-peers', 'http://10.0.0.2:8080|key'], {})).to.throw(
        UsageError,
        'ripples need a data directory (peers read the log): drop --ripple-peers (or EDDYDB_RIPPLE_PEERS), or drop ' +
          '--memory (or EDDYDB_MEMORY)',
      );
    });
  });
});
