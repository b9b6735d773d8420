/**
 * Client tool calls in flight: a turn that asked the client to run a tool
 * waits here for the answer (POST /api/chat/{id}/tool-result or a WebSocket
 * ClientToolResult). The wait ends with the result, with a timeout outcome
 * after `timeoutMs` without news (a keep-alive restarts that clock), or
 * with the turn's abort. Calls are keyed by chat and call id; call ids are
 * minted here, so two turns never share one.
 */
import { randomUUID } from 'node:crypto';
import type { ToolOutcome } from './server-tools.js';

export type ClientToolAnswer =
  | {
      readonly kind: 'result';
      readonly callId: string;
      readonly success: boolean;
      readonly result?: unknown;
      readonly error?: string;
    }
  | { readonly kind: 'keepalive'; readonly callId: string };

/** Timers, injectable so specs need not wait out real time. */
export interface BrokerClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: BrokerClock = {
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Pending {
  readonly resolve: (outcome: ToolOutcome & { readonly timedOut?: boolean }) => void;
  readonly timeoutMs: number;
  timer: unknown;
}

export class ClientToolBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: BrokerClock = REAL_CLOCK) {}

  /** A fresh call id for a client tool call. */
  newCallId(): string {
    return `ctc_${randomUUID().replace(/-/g, '')}`;
  }

  /**
   * Waits for the client's answer to `callId` of `chatId`; never rejects (a timeout or an abort is an unsuccessful
   * outcome).
   */
  wait(
    chatId: string,
    callId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ToolOutcome & { readonly timedOut?: boolean }> {
    const key = keyOf(chatId, callId);
    return new Promise((resolve) => {
      const finish = (outcome: ToolOutcome & { readonly timedOut?: boolean }) => {
        const waiting = this.pending.get(key);
        if (!waiting) return;
        this.clock.clearTimeout(waiting.timer);
        this.pending.delete(key);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = () => finish({ success: false, error: 'The chat turn was cancelled' });
      const waiting: Pending = { resolve: finish, timeoutMs, timer: undefined };
      this.pending.set(key, waiting);
      this.arm(key, waiting);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private arm(key: string, waiting: Pending): void {
    this.clock.clearTimeout(waiting.timer);
    waiting.timer = this.clock.setTimeout(
      () =>
        waiting.resolve({
          success: false,
          error: `The client did not answer within ${Math.round(waiting.timeoutMs / 1000)} s`,
          timedOut: true,
        }),
      waiting.timeoutMs,
    );
  }

  /** Delivers a client's answer; false when no turn waits on that call (unknown, answered, or timed out). */
  deliver(chatId: string, answer: ClientToolAnswer): boolean {
    const key = keyOf(chatId, answer.callId);
    const waiting = this.pending.get(key);
    if (!waiting) return false;
    if (answer.kind === 'keepalive') {
      this.arm(key, waiting);
      return true;
    }
    waiting.resolve({
      success: answer.success,
      ...(answer.result !== undefined ? { result: answer.result } : {}),
      ...(answer.error !== undefined ? { error: answer.error } : {}),
    });
    return true;
  }

  /** Calls waiting now (for specs and diagnostics). */
  get size(): number {
    return this.pending.size;
  }
}

const keyOf = (chatId: string, callId: string) => `${chatId}\u0000${callId}`;
