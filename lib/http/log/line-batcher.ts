/**
 * Collects the log lines written during one turn of the event loop and
 * writes them with one write, so an access log under load costs one system
 * call per turn instead of one per request (a write to stdout costs more
 * than making the line). Lines that must not wait
 * (warnings and errors, shutdown) are pushed out at once with `flush`.
 * What is pending is at most one turn's lines or `maxChars`.
 */
import type { DestinationStream } from 'pino';

export class LineBatcher implements DestinationStream {
  private pending = '';
  private scheduled = false;

  constructor(
    private readonly out: DestinationStream,
    private readonly maxChars = 64 * 1024,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.maxChars) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /** Writes what is pending now. */
  flush(): void {
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    this.out.write(lines);
  }
}
