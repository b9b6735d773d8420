/**
 * Self-signed certificates for TLS specs, made by openssl in a directory of
 * the test's own: an EC key and a one-day certificate valid for 127.0.0.1
 * and localhost. Each call makes a new pair, so a spec can tell two
 * certificates apart by fingerprint (a renewal) or pair a key with the
 * wrong certificate.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: Buffer;
  readonly key: Buffer;
  /** SHA-256 fingerprint as node's getPeerCertificate() shows it (`AB:CD:...`). */
  readonly fingerprint256: string;
}

/** Writes `<name>.crt` and `<name>.key` in `dir` for the subject `CN=<commonName>`. */
export function makeCertificate(dir: string, name: string, commonName = 'localhost'): TestCertificate {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(certFile);
  return {
    certFile,
    keyFile,
    cert,
    key: readFileSync(keyFile),
    fingerprint256: new X509Certificate(cert).fingerprint256,
  };
}
