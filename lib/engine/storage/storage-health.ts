/**
 * Read-only mode after a storage failure, and the way back out.
 *
 * The log writer reports a fault once; from then on every write is refused
 * with a ReadOnlyRefusal (503) until a repair succeeds. Repairs run in the
 * background on a backoff: first after `firstMs`, then doubling up to
 * `maxMs`. A fault soon after a repair (a disk on the edge) resumes the
 * backoff where it stopped instead of starting over, so a flapping disk
 * cannot flood the log.
 *
 * Listeners get events, not log lines: the cause once when read-only begins,
 * one summary per `summaryMs` while it lasts (refused writes, attempts), and
 * the recovery. The repair itself is injected (the write queue runs the log
 * writer's heal between groups); this class only decides when.
 */
import { MESSAGES, ReadOnlyRefusal } from '../../errors.js';
import type { Clock } from '../time/clock.js';
import type { StorageFault } from './storage-fault.js';
import { fallbackEngineLog, type EngineLog } from '../engine-log.js';

export interface HealOptions {
  /** Delay before the first repair attempt (default 1 s). */
  firstMs?: number;
  /** Longest delay between attempts (default 30 s). */
  maxMs?: number;
  /** Interval of the "still read-only" summary (default 60 s). */
  summaryMs?: number;
}

export const DEFAULT_HEAL_OPTIONS: Readonly<Required<HealOptions>> = {
  firstMs: 1000,
  maxMs: 30_000,
  summaryMs: 60_000,
};

export type StorageEvent =
  | { readonly kind: 'read_only'; readonly cause: StorageFault; readonly retryInMs: number }
  | {
      readonly kind: 'still_read_only';
      readonly cause: StorageFault;
      readonly refused: number;
      readonly windowMs: number;
      readonly attempts: number;
      readonly lastError?: { readonly code: string; readonly message: string };
    }
  | {
      readonly kind: 'healed';
      readonly cause: StorageFault;
      readonly downMs: number;
      readonly attempts: number;
      readonly refused: number;
    };

export interface StorageStatus {
  readonly state: 'ok' | 'read_only';
  readonly cause?: StorageFault;
  /** When read-only began (clock ms). */
  readonly since?: number;
  /** Repair attempts since read-only began (0 while healthy). */
  readonly healAttempts: number;
  readonly lastAttemptAt?: number;
  readonly lastAttemptError?: { readonly code: string; readonly message: string };
}

interface Episode {
  readonly cause: StorageFault;
  readonly since: number;
  attempts: number;
  lastAttemptAt?: number;
  lastAttemptError?: { code: string; message: string };
  refused: number;
  refusedInWindow: number;
}

export class StorageHealth {
  private episode: Episode | undefined;
  private readonly opts: Required<HealOptions>;
  private nextDelayMs: number;
  private healedAt = Number.NEGATIVE_INFINITY;
  private retryTimer: NodeJS.Timeout | undefined;
  private summaryTimer: NodeJS.Timeout | undefined;
  private healing: Promise<boolean> | undefined;
  private stopped = false;
  private repair: () => Promise<void> = () => Promise.reject(new Error('no storage repair wired'));
  private readonly listeners: Array<(event: StorageEvent) => void> = [];

  constructor(
    private readonly clock: Clock,
    opts: HealOptions = {},
    private readonly log: EngineLog = fallbackEngineLog,
  ) {
    this.opts = {
      firstMs: opts.firstMs ?? DEFAULT_HEAL_OPTIONS.firstMs,
      maxMs: opts.maxMs ?? DEFAULT_HEAL_OPTIONS.maxMs,
      summaryMs: opts.summaryMs ?? DEFAULT_HEAL_OPTIONS.summaryMs,
    };
    this.nextDelayMs = this.opts.firstMs;
  }

  /** Sets the repair action. It must leave storage writable or throw. */
  repairWith(fn: () => Promise<void>): void {
    this.repair = fn;
  }

  onEvent(listener: (event: StorageEvent) => void): void {
    this.listeners.push(listener);
  }

  get readOnly(): boolean {
    return this.episode !== undefined;
  }
  get cause(): StorageFault | undefined {
    return this.episode?.cause;
  }

  status(): StorageStatus {
    const episode = this.episode;
    if (!episode) return { state: 'ok', healAttempts: 0 };
    return {
      state: 'read_only',
      cause: episode.cause,
      since: episode.since,
      healAttempts: episode.attempts,
      lastAttemptAt: episode.lastAttemptAt,
      lastAttemptError: episode.lastAttemptError,
    };
  }

  /** Enters read-only mode and schedules repairs. While read-only, the first cause stands. */
  fail(cause: StorageFault): void {
    if (this.episode) return;
    const now = this.clock.now();
    this.episode = { cause, since: now, attempts: 0, refused: 0, refusedInWindow: 0 };
    if (now - this.healedAt > this.opts.maxMs) this.nextDelayMs = this.opts.firstMs;
    this.emit({ kind: 'read_only', cause, retryInMs: this.nextDelayMs });
    if (this.stopped) return;
    this.scheduleRetry();
    this.summaryTimer = setInterval(() => this.summarize(), this.opts.summaryMs);
    this.summaryTimer.unref();
  }

  /** The error a write is refused with while read-only; counted for the summary. */
  refuse(): ReadOnlyRefusal {
    if (this.episode) {
      this.episode.refused += 1;
      this.episode.refusedInWindow += 1;
    }
    return new ReadOnlyRefusal(MESSAGES.readOnly, { cause: this.episode?.cause.error });
  }

  /** One repair attempt now (the retry timer and shutdown use it). Resolves true once writable. */
  healNow(): Promise<boolean> {
    if (!this.episode) return Promise.resolve(true);
    this.healing ??= this.attempt().finally(() => {
      this.healing = undefined;
    });
    return this.healing;
  }

  /** Stops the timers (shutdown); read-only mode itself stays until a repair succeeds. */
  stop(): void {
    this.stopped = true;
    this.clearTimers();
  }

  private async attempt(): Promise<boolean> {
    const episode = this.episode!;
    episode.attempts += 1;
    episode.lastAttemptAt = this.clock.now();
    try {
      await this.repair();
    } catch (err) {
      const error = err as NodeJS.ErrnoException;
      episode.lastAttemptError = { code: error.code ?? 'EUNKNOWN', message: error.message };
      return false;
    }
    this.clearTimers();
    this.episode = undefined;
    this.healedAt = this.clock.now();
    this.emit({
      kind: 'healed',
      cause: episode.cause,
      downMs: this.healedAt - episode.since,
      attempts: episode.attempts,
      refused: episode.refused,
    });
    return true;
  }

  private scheduleRetry(): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.healNow().then((healed) => {
        if (healed || this.stopped || !this.episode) return;
        this.nextDelayMs = Math.min(this.nextDelayMs * 2, this.opts.maxMs);
        this.scheduleRetry();
      });
    }, this.nextDelayMs);
    this.retryTimer.unref();
  }

  private summarize(): void {
    const episode = this.episode;
    if (!episode) return;
    this.emit({
      kind: 'still_read_only',
      cause: episode.cause,
      refused: episode.refusedInWindow,
      windowMs: this.opts.summaryMs,
      attempts: episode.attempts,
      lastError: episode.lastAttemptError,
    });
    episode.refusedInWindow = 0;
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.summaryTimer) clearInterval(this.summaryTimer);
    this.retryTimer = this.summaryTimer = undefined;
  }

  private emit(event: StorageEvent): void {
    for (const listener of this.listeners) {
      // A failing listener (a logger) must not break the write path that reported the fault.
      try {
        listener(event);
      } catch (err) {
        this.log('storage event listener failed', 'error', err);
      }
    }
  }
}
