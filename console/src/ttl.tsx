/** Time to live shown counting down: a shared once-a-second clock and the remaining time of an `expires_at`. */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

/** The browser's clock in milliseconds, re-rendering the caller every second (one timer for every subscriber). */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    listeners.add(tick);
    timer ??= setInterval(() => listeners.forEach((l) => l()), 1000);
    return () => {
      listeners.delete(tick);
      if (listeners.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return now;
}

/** "2h 05m 09s", "4m 03s", "9s": a duration in whole seconds, rounded up so 0 means due. */
export function formatRemaining(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${pad(h)}h ${pad(m)}m`;
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** The time left before `expiresAt` (ISO text), counting down each second; "never" without one. */
export function Countdown({ expiresAt }: { expiresAt: string | undefined }) {
  const now = useNow();
  if (!expiresAt) return <span class="muted">never</span>;
  const left = Date.parse(expiresAt) - now;
  return (
    <time dateTime={expiresAt} title={`Expires at ${new Date(expiresAt).toLocaleString()}`} data-testid="ttl">
      {left > 0 ? formatRemaining(left) : 'expired'}
    </time>
  );
}
