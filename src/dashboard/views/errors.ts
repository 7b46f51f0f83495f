// Error pages: plain words, a way back, and nothing internal.
import { html, type SafeHtml } from '../../lib/html.ts';
import { page, type Viewer } from './layout.ts';

export function errorPage(o: { title: string; message: string; viewer?: Viewer | null; requestId: string }): SafeHtml {
  return page({
    title: o.title,
    viewer: o.viewer ?? null,
    body: html`<h1>${o.title}</h1>
      <section class="card">
        <p>${o.message}</p>
        <p><a href="/dashboard">Back to the dashboard</a></p>
        <p class="muted">Reference: <code>${o.requestId}</code></p>
      </section>`,
  });
}
