// Pay-to-unlock (docs/api.md §29): while a gallery has an open invoice with pay_to_unlock, its
// public pages (client link, share links, property pages, the portal) are a preview. This is what
// they ask: whether a gallery is locked, by which invoice, and what its photos show meanwhile.
//
// Nothing here is cached: every public request reads the locking invoice (one indexed row, with the
// account's logo and whether it pays online joined in), so a
// payment or a void, through any node, path or job, lifts the lock on the next request everywhere.
// The pages send no validator of their own (`private, no-cache` or `no-cache`, no ETag), and each
// image's ETag and versioned URL name the stored file it serves: a preview's differ from its
// photo's, so no 304 and no browser's copy of a preview survives the unlock as the photo, nor the
// other way round. A key-holder's /v1 reads never come here.
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { AccountsService } from '../accounts/accounts.service.ts';
import type { VisibleMedia } from '../media/media.repository.ts';
import { amountDue as dueOf, formatMoney } from '../money/money.ts';
import { paymentUrlOf } from '../stripe/stripe.entry.ts';
import { queuePreviews } from '../variants/variants.watermark.job.ts';
import { markOf, PREVIEW_OF, WATERMARK_NAMES } from '../variants/variants.watermark.ts';
import * as repo from './invoices.repository.ts';
import type { InvoicesService } from './invoices.service.ts';

/** What a locked page shows of the invoice that locks it. */
export interface PayLock {
  invoiceId: string;
  number: string;
  amountDue: number;
  currency: string;
  /** The amount due as a person reads it (src/modules/money). */
  amountDueText: string;
  /** Online payment's page, when the studio has it set up; else null (pay the studio directly). */
  paymentUrl: string | null;
  /** How to pay the studio without online payment. */
  studioEmail: string;
  /** The studio's name as the previews carry it. */
  studioName: string;
  /** The studio's watermark logo's key, which the previews carry instead of the name; else null. */
  logoKey: string | null;
}

/** A locked page's item: previews stand in for thumb and large; `preparing` while they are not made. */
export type PreviewMedia = VisibleMedia & { preparing: boolean };

export type PayLocks = ReturnType<typeof createPayLocks>;

export function createPayLocks({
  db,
  config,
  writes,
  invoices,
  accounts,
}: Pick<Deps, 'db' | 'config'> & {
  writes: Writes;
  invoices: Pick<InvoicesService, 'pdf'>;
  accounts: Pick<AccountsService, 'get'>;
}) {
  return {
    /**
     * The invoice that keeps this gallery's public pages a preview, or undefined (not locked).
     * `studio` is the account as the page read it (its name and email), when it has: not read twice.
     */
    async of(
      accountId: string,
      listingId: string,
      studio?: Promise<Pick<Awaited<ReturnType<AccountsService['get']>>, 'name' | 'email'> | undefined>,
    ): Promise<PayLock | undefined> {
      const row = await repo.lockingInvoice(db.kysely, accountId, listingId);
      if (row === undefined) return undefined;
      const account = await (studio?.then((a) => a ?? accounts.get(accountId)) ?? accounts.get(accountId));
      const amountDue = dueOf(Number(row.total), Number(row.amount_paid));
      // Online while the studio's Stripe keys are set; a test-mode account always (a local page).
      const online = row.live_account_id !== null || Number(row.stripe) === 1;
      return {
        invoiceId: row.id,
        number: row.number ?? '',
        amountDue,
        currency: row.currency,
        amountDueText: formatMoney(amountDue, row.currency),
        paymentUrl: await paymentUrlOf(db.kysely, config.publicUrl, { id: row.id, amount_due: amountDue }, online),
        studioEmail: account.email,
        studioName: account.name,
        logoKey: row.own_logo ?? row.studio_logo ?? null,
      };
    },

    /**
     * The media as a locked page shows them: a photo's previews under the names `thumb` and
     * `large`, nothing else of any item (no medium, mls, poster, rendition); an item without a
     * current preview is `preparing`, and its preview is queued (once) here.
     */
    async preview(accountId: string, lock: PayLock, media: readonly VisibleMedia[]): Promise<PreviewMedia[]> {
      const mark = markOf(lock.studioName, lock.logoKey);
      const missing: string[] = [];
      const shown = media.map((m): PreviewMedia => {
        if (m.row.kind !== 'photo' || !m.variants.some((v) => v.name === 'large')) {
          return { row: m.row, variants: [], preparing: false };
        }
        const previews = Object.entries(PREVIEW_OF).flatMap(([as, name]) => {
          const v = m.variants.find((x) => x.name === name && x.mark === mark);
          return v === undefined ? [] : [{ ...v, name: as as 'thumb' | 'large' }];
        });
        const ready = previews.length === WATERMARK_NAMES.length;
        if (!ready) missing.push(m.row.id);
        return { row: m.row, variants: ready ? previews : [], preparing: !ready };
      });
      if (missing.length > 0) await writes.run(accountId, {}, (w) => queuePreviews(w, missing));
      return shown;
    },

    /** The invoice's PDF (the studio's own rendering, docs/api.md §29), for the locked page's link. */
    pdf(accountId: string, lock: PayLock) {
      return invoices.pdf(accountId, lock.invoiceId);
    },
  };
}
