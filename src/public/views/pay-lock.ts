// What a page says while an open invoice keeps its gallery a preview (docs/api.md §29). The
// client's pages (the client link, share links) show the invoice: the amount due, its number,
// its PDF and how to pay. The property pages are public, and the invoice (whose PDF names the
// client) is not the public's: they say only that the photos are a preview.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { PayLock } from '../../modules/invoices/invoices.lock.ts';

/** The client's notice, above the photos: `base` is the link's page (its PDF is `base/invoice.pdf`). */
export function payLockNotice(lock: PayLock, base: string): SafeHtml {
  return html`<section class="pay-lock" aria-labelledby="pay-lock-title">
    <h2 id="pay-lock-title">${lock.amountDueText} due</h2>
    <p>
      These photos are a preview, marked with ${lock.studioName}'s ${lock.logoKey === null ? 'name' : 'logo'}. The
      full-size photos and downloads open as soon as invoice ${lock.number} is paid.
    </p>
    <p class="pay-lock__actions">
      ${
        lock.paymentUrl === null
          ? ''
          : html`<a class="button" href="${lock.paymentUrl}" rel="noopener">Pay ${lock.amountDueText}</a>`
      }
      <a class="button button--quiet" href="${base}/invoice.pdf">Invoice ${lock.number} (PDF)</a>
    </p>
    ${
      lock.paymentUrl === null
        ? html`<p class="pay-lock__how">
            How to pay: contact ${lock.studioName} at
            <a href="mailto:${lock.studioEmail}">${lock.studioEmail}</a>, quoting invoice ${lock.number}.
          </p>`
        : ''
    }
  </section>`;
}

/** The property pages' notice: a preview, and nothing of the invoice. */
export const previewNotice = (): SafeHtml =>
  html`<p class="pay-lock pay-lock--public" role="note">
    Preview: these photos are marked until they are released. Full-size photos will appear here then.
  </p>`;
