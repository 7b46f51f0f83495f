// How dates and counts read on the dashboard. The server does not know the reader's time zone,
// so times are shown in UTC, and say so; the machine-readable value is in <time datetime>.
import { html, type SafeHtml } from '../../lib/html.ts';

const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  hour12: false,
});

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

export function when(iso: string | null, empty = 'never'): SafeHtml {
  if (iso === null) return html`<span class="muted">${empty}</span>`;
  return html`<time datetime="${iso}">${DATE_TIME.format(new Date(iso))} UTC</time>`;
}

export function day(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${DATE.format(new Date(iso))}</time>`;
}

export const count = (n: number): string => n.toLocaleString('en-GB');
