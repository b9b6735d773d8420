/**
 * The TLS files of `eddydb start` (`--tls-cert`, `--tls-key`): both or
 * neither; read and checked as a pair before anything starts, so a missing
 * file, one that is not PEM or a key of another certificate stops the start
 * with one line naming the file. SIGHUP reads them again (start.ts): a pair
 * that passes the same checks serves new connections, one that does not is
 * logged as an error and the running certificate stays.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Server, TlsCredentials } from '../http/index.js';
import { UsageError, type OptionValues } from './args/option-values.js';
import { CliFailure } from './failure.js';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** The absolute TLS files the options name, or undefined for plain HTTP. Throws UsageError when one is missing. */
export function tlsFilesOf(v: OptionValues): TlsFiles | undefined {
  const certFile = v.text('tls-cert');
  const keyFile = v.text('tls-key');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (keyFile === undefined)
    throw new UsageError(
      '--tls-cert needs --tls-key (or EDDYDB_TLS_KEY), the private key of that certificate: give both to serve ' +
        'HTTPS, or neither',
    );
  if (certFile === undefined)
    throw new UsageError(
      '--tls-key needs --tls-cert (or EDDYDB_TLS_CERT), the certificate of that key: give both to serve HTTPS, or ' +
        'neither',
    );
  return { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) };
}

/** Reads both files and checks them as a pair. Throws CliFailure naming the file and what is wrong with it. */
export function readTlsFiles(files: TlsFiles): TlsCredentials {
  const cert = readPem(files.certFile, 'certificate (--tls-cert)');
  const key = readPem(files.keyFile, 'key (--tls-key)');
  checked(() => tls.createSecureContext({ cert }), `the TLS certificate ${files.certFile} is not a PEM certificate`);
  checked(
    () => tls.createSecureContext({ key }),
    `the TLS key ${files.keyFile} is not a PEM private key (an encrypted one is not read)`,
  );
  checked(
    () => tls.createSecureContext({ cert, key }),
    `the TLS key ${files.keyFile} is not the key of the certificate ${files.certFile}; give the pair that belongs ` +
      'together',
  );
  return { cert, key };
}

/**
 * Reads the files again and serves the pair to new connections (open ones
 * keep theirs); logs what it did. Never throws: a bad pair is logged as an
 * error and the server goes on with the certificate it has.
 */
export function reloadTlsFiles(server: Server, files: TlsFiles): void {
  try {
    const credentials = readTlsFiles(files);
    server.reloadTls(credentials);
    const cert = new X509Certificate(credentials.cert);
    server.log('info', 'TLS certificate reloaded', {
      certFile: files.certFile,
      subject: cert.subject,
      validTo: cert.validTo,
      fingerprint256: cert.fingerprint256,
    });
  } catch (err) {
    server.log('error', `TLS certificate not reloaded, still serving the previous one: ${(err as Error).message}`);
  }
}

function readPem(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new CliFailure(`cannot read the TLS ${what} ${file}: ${why}`);
  }
}

/** Runs a node:tls check; its failure becomes a CliFailure saying `message` and node's reason. */
function checked(check: () => unknown, message: string): void {
  try {
    check();
  } catch (err) {
    throw new CliFailure(`${message} (${(err as Error).message})`);
  }
}
