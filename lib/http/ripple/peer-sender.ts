/**
 * Ships committed batches to one peer, in seq order, from that peer's
 * acknowledged seq: from the in-memory tail when it covers the gap, else
 * from the log. A failure is retried with exponential backoff; nothing is
 * dropped, and the acknowledged seq is persisted after each success.
 * The log hears of transitions only, not of every retry: a warning when the
 * peer stops accepting batches (with the cause), and one when it accepts them
 * again (how long it was down, how many attempts failed).
 */
import { encodeShipped, type LoggedBatch, type ShippedBatch } from '../../engine/index.js';
import type { ServerLog } from '../log/server-log.js';

export interface PeerConfig {
  readonly url: string;
  readonly key: string;
}

export interface PeerStatus {
  url: string;
  acked_seq: number;
  local_seq: number;
  lag: number;
  state: 'idle' | 'sending' | 'backoff' | 'stopped';
  last_error: string | null;
  last_error_at: string | null;
  last_success_at: string | null;
  shipped_batches: number;
}

const MAX_BATCHES_PER_REQUEST = 500;

/** The engine as a peer sender reads it: the committed seq, the log, and each peer's acknowledged seq. */
export interface PeerEngine {
  readonly state: { readonly seq: number };
  readLog(afterSeq: number, limit: number): Promise<{ batches: LoggedBatch[] }>;
  readonly replication: {
    readonly nodeId: string;
    acked(peer: string): number;
    /** Persists the seq a peer has acknowledged. */
    setAcked(peer: string, seq: number): Promise<void>;
    /** The batch as shipped to peers; undefined when it is not to be rippled. */
    shippable(batch: LoggedBatch): ShippedBatch | undefined;
  };
}

export class PeerSender {
  private token: string | undefined;
  private running = false;
  private wakeUp: (() => void) | undefined;
  private state: PeerStatus['state'] = 'idle';
  private lastError: string | null = null;
  private lastErrorAt: number | null = null;
  private lastSuccessAt: number | null = null;
  private shipped = 0;
  private failures = 0;
  /** Date.now() of the first failure of the current outage. */
  private downSince: number | undefined;

  constructor(
    readonly peer: PeerConfig,
    private readonly engine: PeerEngine,
    private readonly tail: (afterSeq: number) => LoggedBatch[] | undefined,
    private readonly maxBackoffMs: number,
    private readonly log: ServerLog = () => undefined,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
    this.state = 'stopped';
    this.wake();
  }

  /** Called on every commit. */
  wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  status(): PeerStatus {
    const acked = this.engine.replication.acked(this.peer.url);
    const seq = this.engine.state.seq;
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return {
      url: this.peer.url,
      acked_seq: acked,
      local_seq: seq,
      lag: Math.max(0, seq - acked),
      state: this.state,
      last_error: this.lastError,
      last_error_at: iso(this.lastErrorAt),
      last_success_at: iso(this.lastSuccessAt),
      shipped_batches: this.shipped,
    };
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const acked = this.engine.replication.acked(this.peer.url);
      if (acked >= this.engine.state.seq) {
        this.state = 'idle';
        await new Promise<void>((r) => {
          this.wakeUp = r;
        });
        continue;
      }
      try {
        this.state = 'sending';
        await this.sendFrom(acked);
        this.recovered();
        this.failures = 0;
        this.lastSuccessAt = Date.now();
      } catch (err) {
        if (this.failures === 0) this.wentDown(err);
        this.failures += 1;
        this.lastError = (err as Error).message;
        this.lastErrorAt = Date.now();
        this.state = 'backoff';
        const delay = Math.min(this.maxBackoffMs, 100 * 2 ** Math.min(this.failures, 16));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          timer.unref();
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  private wentDown(err: unknown): void {
    this.downSince = Date.now();
    this.log(
      'warn',
      `ripple peer ${this.peer.url} is not accepting batches (${(err as Error).message}); retrying with backoff up ` +
        `to ${this.maxBackoffMs} ms, nothing is dropped`,
      {
        peer: this.peer.url,
        lag: Math.max(0, this.engine.state.seq - this.engine.replication.acked(this.peer.url)),
      },
    );
  }

  private recovered(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.log(
      'warn',
      `ripple peer ${this.peer.url} accepts batches again after ${Math.round(downMs / 100) / 10} s and ` +
        `${this.failures} failed attempt(s)`,
      { peer: this.peer.url, downMs },
    );
  }

  private async sendFrom(acked: number): Promise<void> {
    const pending = this.tail(acked) ?? (await this.engine.readLog(acked, MAX_BATCHES_PER_REQUEST)).batches;
    const batches = pending.slice(0, MAX_BATCHES_PER_REQUEST);
    if (batches.length === 0) throw new Error(`log no longer holds batches after seq ${acked}; resync this peer`);
    const shipped = batches
      .map((batch) => this.engine.replication.shippable(batch))
      .filter((batch): batch is ShippedBatch => batch !== undefined);
    if (shipped.length > 0) await this.post(shipped);
    this.shipped += shipped.length;
    await this.engine.replication.setAcked(this.peer.url, batches.at(-1)!.seq);
  }

  /** POSTs batches to the peer, refreshing the token once on a 401. */
  async post(batches: readonly ShippedBatch[]): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      this.token ??= await this.fetchToken();
      const res = await fetch(`${this.peer.url}/api/ripple/apply`, {
        method: 'POST',
        headers: {
          'content-type': 'application/msgpack',
          accept: 'application/json',
          authorization: `Bearer ${this.token}`,
        },
        body: encodeShipped(batches),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status === 401 && attempt === 0) {
        this.token = undefined;
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw new Error(`peer answered ${res.status}: ${text.slice(0, 200)}`);
      return;
    }
  }

  private async fetchToken(): Promise<string> {
    const res = await fetch(`${this.peer.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: this.peer.key }),
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`peer refused the ripple key (${res.status})`);
    return ((await res.json()) as { token: string }).token;
  }
}
