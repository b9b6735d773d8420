/**
 * A row of tabs that are links: each view has its own URL (deep links, the back button), the current one marked
 * with aria-current. Styled in tabs.css.
 */
import './tabs.css';

export interface Tab {
  id: string;
  label: string;
  href: string;
}

export function TabLinks({ tabs, current, label }: { tabs: Tab[]; current: string; label: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <a key={t.id} href={t.href} aria-current={t.id === current ? 'page' : undefined} data-tab={t.id}>
          {t.label}
        </a>
      ))}
    </nav>
  );
}
