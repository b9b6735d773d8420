/**
 * A storage fault: which operation on which file failed, with the errno code
 * and message, in a form fit for a log line and the public health body (file
 * names only, no directory paths).
 */
import path from 'node:path';

export type StorageOperation = 'write' | 'fsync' | 'rotate';

export interface StorageFault {
  readonly operation: StorageOperation;
  /** Base name of the file, e.g. `log-0000000000000001.seg`. */
  readonly file: string;
  /** The errno code (`ENOSPC`, `EIO`, ...), or `EUNKNOWN` for an error without one. */
  readonly code: string;
  readonly message: string;
  /** The original error, kept as the cause of what clients are told. */
  readonly error: Error;
}

/** Describes `err` raised by `operation` on `file` (a path inside `dir`). */
export function describeFault(err: unknown, operation: StorageOperation, file: string, dir: string): StorageFault {
  const error = err instanceof Error ? err : new Error(String(err));
  const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
  // Node puts absolute paths in some messages; the health body is public, so keep only names.
  const message = error.message.split(dir + path.sep).join('');
  return { operation, file: path.basename(file), code, message, error };
}
