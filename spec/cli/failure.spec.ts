/**
 * What a failed command says. Known failures are one or two lines
 * naming what happened and what to do; an unexpected error gets no
 * description, so main.ts prints its stack. Pure: describeFailure with the
 * errors node and the engine raise (permission errors cannot be provoked
 * for real when the tests run as root).
 */
import { expect } from 'chai';
import { Corruption, Unavailable } from '../../lib/errors.js';
import { CliFailure, describeFailure } from '../../lib/cli/failure.js';

function errno(code: string, fields: Record<string, unknown>): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed`), { code, ...fields });
}

describe('describeFailure', () => {
  const ctx = { port: 8080, host: '0.0.0.0', dataDir: '/srv/eddy' };

  it('names the port and host for a port in use or not permitted', () => {
    expect(describeFailure(errno('EADDRINUSE', { syscall: 'listen', port: 9000, address: '127.0.0.1' }), ctx)).to.equal(
      'port 9000 on 127.0.0.1 is already in use (is another server running?); stop it or choose another port with ' +
        '--port',
    );
    expect(describeFailure(errno('EACCES', { syscall: 'listen', port: 80 }), ctx)).to.equal(
      'no permission to listen on port 80 (ports below 1024 need privileges); choose another with --port',
    );
  });

  it('names the path for a permission, disk or path problem with the data directory', () => {
    expect(describeFailure(errno('EACCES', { syscall: 'mkdir', path: '/srv/eddy' }), ctx)).to.equal(
      'permission denied: cannot mkdir /srv/eddy; check the owner and mode of the data directory',
    );
    expect(describeFailure(errno('ENOSPC', { syscall: 'write', path: '/srv/eddy/log-1.seg' }), ctx)).to.equal(
      'no space left on the device holding /srv/eddy/log-1.seg',
    );
    expect(describeFailure(errno('EROFS', { syscall: 'open', path: '/srv/eddy/LOCK' }), ctx)).to.equal(
      'read-only file system: cannot write /srv/eddy/LOCK',
    );
  });

  it('finds the errno in the cause of a wrapped error', () => {
    const wrapped = new Unavailable('storage failed', {
      cause: errno('EACCES', { syscall: 'open', path: '/srv/eddy/secrets' }),
    });
    expect(describeFailure(wrapped, ctx)).to.equal(
      'permission denied: cannot open /srv/eddy/secrets; check the owner and mode of the data directory',
    );
  });

  it("tells a locked data directory by the engine's message, and a damaged one with what to run next", () => {
    expect(describeFailure(new Unavailable('Data directory /srv/eddy is in use by process 42'), ctx)).to.equal(
      'Data directory /srv/eddy is in use by process 42',
    );
    expect(describeFailure(new Corruption('log-0000000000000001.seg', 120, 'checksum mismatch'), ctx)).to.equal(
      'corruption in log-0000000000000001.seg at byte 120: checksum mismatch\n' +
        "run 'eddydb verify --data-dir /srv/eddy' to see what is damaged; 'eddydb start --salvage' starts from what " +
        'is readable',
    );
    expect(describeFailure(new CliFailure('no EddyDB data directory at /x'), ctx)).to.equal(
      'no EddyDB data directory at /x',
    );
  });

  it('leaves an unexpected error undescribed, so its stack is printed', () => {
    expect(describeFailure(new TypeError('x is undefined'), ctx)).to.equal(undefined);
    expect(describeFailure(Object.assign(new Error('parse'), { code: 'ERR_INVALID_ARG_TYPE' }), ctx)).to.equal(
      undefined,
    );
  });
});
