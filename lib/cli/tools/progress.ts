/**
 * Progress of a long tool run on stderr (stdout may be the data). The
 * running count rewrites one line, and only on a terminal; the final line
 * is always written.
 */

/** Shows `msg`; `isFinal` ends the line and is written even when stderr is not a terminal. */
export function progress(msg: string, isFinal = false): void {
  if (isFinal) process.stderr.write(process.stderr.isTTY ? `\r${msg}\n` : `${msg}\n`);
  else if (process.stderr.isTTY) process.stderr.write(`\r${msg}`);
}
