// The one service graph: every service, built once from the long-lived resources (src/deps.ts).
// The app (both scopes), the command line and the tests all take their services from here, so a
// new service or a new dependency between services is written in one place.
import type { Deps } from './deps.ts';
import { createWrites, type LockQueries, type ResourceRegistry, type Writes } from './mechanisms/writes/writes.ts';
import { lockAccount } from './modules/accounts/accounts.repository.ts';
import { lockListing, touchListing } from './modules/listings/listings.repository.ts';
import { listingSerializer } from './modules/listings/listings.serializer.ts';
import { lockMedia } from './modules/media/media.repository.ts';
import { lockPhotoForVariants } from './modules/variants/variants.repository.ts';
import { createLogoService, type LogoService } from './modules/variants/variants.logo.ts';
import { createKitMusicService, type KitMusicService } from './modules/kit/kit.music.ts';
import { createAccountsService, type AccountsService } from './modules/accounts/accounts.service.ts';
import { createPasswordResetService, type PasswordResetService } from './modules/accounts/password-reset.service.ts';
import { createSessionsService, type SessionsService } from './modules/accounts/sessions.service.ts';
import { createSignInService, type SignInService } from './modules/accounts/sign-in.service.ts';
import { createTeamService, type TeamService } from './modules/accounts/team.service.ts';
import { createTwoFactorService, type TwoFactorService } from './modules/accounts/two-factor.service.ts';
import { createApiKeysService, type ApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { createClientLinksService, type ClientLinksService } from './modules/client-links/client-links.service.ts';
import {
  createShareLinksService,
  loadShareLink,
  touchShareLink,
  type ShareLinksService,
} from './modules/client-links/share-links.service.ts';
import { shareLinkSerializer } from './modules/client-links/share-links.serializer.ts';
import { createPortalsService, type PortalsService } from './modules/portals/portals.service.ts';
import { createClientsService, loadClient, type ClientsService } from './modules/clients/clients.service.ts';
import { createCountsService, type CountsService } from './mechanisms/counts/counts.service.ts';
import { createIdempotencyService, type IdempotencyService } from './mechanisms/idempotency/idempotency.service.ts';
import { createListingsService, loadListing, type ListingsService } from './modules/listings/listings.service.ts';
import { createMediaCleanup, type MediaCleanup } from './modules/media/media.cleanup.ts';
import { createMediaService, loadMedia, type MediaService } from './modules/media/media.service.ts';
import { mediaSerializer } from './modules/media/media.serializer.ts';
import { createUploadsService, type UploadsService } from './modules/uploads/uploads.service.ts';
import { createVariantsUpkeep, type VariantsUpkeep } from './modules/variants/variants.upkeep.ts';
import { createAnalysisUpkeep, type AnalysisUpkeep } from './modules/analysis/analysis.upkeep.ts';
import { createSuggestedOrderService, type SuggestedOrderService } from './modules/analysis/analysis.service.ts';
import {
  createNotificationsService,
  loadNotification,
  type NotificationsService,
} from './modules/notifications/notifications.service.ts';
import {
  createPropertyPagesService,
  type PropertyPagesService,
} from './modules/property-pages/property-pages.service.ts';
import { createVersionsService, type VersionsService } from './mechanisms/versions/versions.service.ts';
import { createTestDataService, type TestDataService } from './modules/test-data/test-data.service.ts';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/webhooks.service.ts';
import { createProductsService, loadProduct, type ProductsService } from './modules/products/products.service.ts';
import {
  createInvoicesService,
  loadInvoice,
  loadPayment,
  type InvoicesService,
} from './modules/invoices/invoices.service.ts';
import { createPayLocks, type PayLocks } from './modules/invoices/invoices.lock.ts';
import { invoiceMail } from './modules/invoices/invoices.email.ts';
import { createStripeService, type StripeService } from './modules/stripe/stripe.service.ts';
import { createKitService, kitReaction, loadKit, type KitService } from './modules/kit/kit.service.ts';
import { complianceReaction, createMlsService, loadMlsProfile, type MlsService } from './modules/mls/mls.service.ts';
import { createResoService, type ResoService } from './modules/reso/reso.service.ts';

export interface Services {
  /** The unit of work (decisions/0018): every change of an account's data goes through it. */
  writes: Writes;
  accounts: AccountsService;
  sessions: SessionsService;
  signIn: SignInService;
  passwordResets: PasswordResetService;
  team: TeamService;
  twoFactor: TwoFactorService;
  apiKeys: ApiKeysService;
  listings: ListingsService;
  clients: ClientsService;
  clientLinks: ClientLinksService;
  shareLinks: ShareLinksService;
  /** The public property pages' tokens and views (docs/api.md §25). */
  propertyPages: PropertyPagesService;
  idempotency: IdempotencyService;
  media: MediaService;
  mediaCleanup: MediaCleanup;
  /** docs/api.md §29: the studio's watermark logo. */
  logos: LogoService;
  /** docs/api.md §32: the studio's music track for the kit's videos. */
  kitMusic: KitMusicService;
  /** Resumable (tus) uploads: docs/api.md §16. */
  uploads: UploadsService;
  /** Photos' variants for the operator: remakes, and the doctor's check and repair. */
  variants: VariantsUpkeep;
  /** `lightbox media analyze`: photos' analysis queued again (docs/api.md §30). */
  analysis: AnalysisUpkeep;
  /** A gallery's suggested photo order, and the dashboard's "Apply suggested order" (docs/api.md §30). */
  suggestedOrder: SuggestedOrderService;
  notifications: NotificationsService;
  /** The client's portal at /c (docs/api.md §28): a token's client and a page of their galleries. */
  portals: PortalsService;
  counts: CountsService;
  webhooks: WebhooksService;
  /** Test mode's DELETE /v1/test_data and the dashboard's button (docs/api.md §20). */
  testData: TestDataService;
  /** The studio's catalogue (docs/api.md §29). */
  products: ProductsService;
  /** Invoices, their numbers and payments (docs/api.md §29). */
  invoices: InvoicesService;
  /** Pay-to-unlock (docs/api.md §29): whether an open invoice keeps a gallery's pages a preview. */
  payLocks: PayLocks;
  /** Online payment of invoices (Stripe, docs/api.md §29): settings, pay links, Stripe's events. */
  stripe: StripeService;
  /** The listing kit (docs/api.md §32): its reads, builds and items. */
  kit: KitService;
  /** MLS profiles and galleries' compliance with them (docs/api.md §31). */
  mls: MlsService;
  /** The RESO media feed (docs/api.md §33). */
  reso: ResoService;
  /** Account versions, the base of the /v1 JSON reads' ETags (docs/api.md §17). */
  versions: VersionsService;
}

/**
 * Each lock of the unit of work, registered by the feature that owns its row; the unit of work
 * takes them in its one order (account, listing, media, photo) and knows no feature's table.
 */
const locks: LockQueries = {
  account: lockAccount,
  listing: lockListing,
  media: lockMedia,
  photo: lockPhotoForVariants,
};

/**
 * Each resource the unit of work loads for the events announced by id, registered once with the
 * loader its GET uses, and which events carry it (by their type's prefix).
 */
export function resourcesOf(config: Deps['config']): ResourceRegistry {
  const serializeListing = listingSerializer(config.publicUrl);
  const serializeMedia = mediaSerializer(config.publicUrl);
  const serializeShareLink = shareLinkSerializer(config.publicUrl);
  return {
    loaders: {
      listing: { load: (trx, accountId, id) => loadListing(trx, serializeListing, accountId, id), touch: touchListing },
      client: { load: (trx, accountId, id) => loadClient(trx, config.publicUrl, accountId, id) },
      media: { load: (trx, accountId, id) => loadMedia(trx, serializeMedia, accountId, id) },
      notification: { load: loadNotification },
      share_link: {
        load: (trx, accountId, id) => loadShareLink(trx, serializeShareLink, accountId, id),
        touch: touchShareLink,
      },
      product: { load: loadProduct },
      invoice: { load: (trx, accountId, id) => loadInvoice(trx, config.publicUrl, accountId, id) },
      payment: { load: loadPayment },
      kit: { load: (trx, accountId, id) => loadKit(trx, config.publicUrl, accountId, id) },
      mls_profile: { load: loadMlsProfile },
    },
    // A client link's events carry its gallery (docs/api.md §15).
    objectOf: {
      listing: 'listing',
      client_link: 'listing',
      share_link: 'share_link',
      client: 'client',
      media: 'media',
      notification: 'notification',
      product: 'product',
      invoice: 'invoice',
      payment: 'payment',
      // docs/api.md §32: the kit's event carries the kit, not the gallery.
      'listing.kit_ready': 'kit',
      mls_profile: 'mls_profile',
    },
  };
}

export function createServices(base: Deps): Services {
  // Built once: on SQLite its group committer is the one writer of the database.
  const writes = createWrites({
    db: base.db,
    clock: base.clock,
    locks,
    resources: resourcesOf(base.config),
    // docs/api.md §31: a write that moves a gallery's compliance announces it when its status changes.
    // docs/api.md §32: a built kit whose gallery changed goes stale, and is rebuilt shortly.
    reactions: [complianceReaction(), kitReaction(base.config.kit.rebuildDelayMs)],
  });
  const deps = { ...base, writes };
  const mediaCleanup = createMediaCleanup(deps);
  const accounts = createAccountsService(deps);
  const media = createMediaService({ ...deps, cleanup: mediaCleanup });
  // docs/api.md §29: issuing emails the invoice, and being paid the receipt.
  const logos = createLogoService({ ...deps, cleanup: mediaCleanup });
  const invoices = createInvoicesService({ ...deps, accounts, mail: invoiceMail(base.config) });
  return {
    writes,
    accounts,
    sessions: createSessionsService(deps),
    signIn: createSignInService(deps),
    passwordResets: createPasswordResetService(deps),
    team: createTeamService(deps),
    twoFactor: createTwoFactorService(deps),
    apiKeys: createApiKeysService(deps),
    listings: createListingsService({ ...deps, cleanup: mediaCleanup }),
    clients: createClientsService(deps),
    clientLinks: createClientLinksService(deps),
    shareLinks: createShareLinksService(deps),
    propertyPages: createPropertyPagesService(deps),
    idempotency: createIdempotencyService(deps),
    media,
    portals: createPortalsService({ ...deps, media, accounts }),
    mediaCleanup,
    logos,
    kitMusic: createKitMusicService({ ...deps, cleanup: mediaCleanup }),
    uploads: createUploadsService({ ...deps, cleanup: mediaCleanup }),
    variants: createVariantsUpkeep(deps),
    analysis: createAnalysisUpkeep(deps),
    suggestedOrder: createSuggestedOrderService({ media, accounts }),
    notifications: createNotificationsService(deps),
    counts: createCountsService(deps),
    webhooks: createWebhooksService(deps),
    testData: createTestDataService({ ...deps, cleanup: mediaCleanup }),
    versions: createVersionsService(deps),
    products: createProductsService(deps),
    invoices,
    payLocks: createPayLocks({ ...deps, invoices, accounts }),
    stripe: createStripeService({ ...deps, invoices }),
    kit: createKitService(deps),
    mls: createMlsService(deps),
    reso: createResoService(deps),
  };
}
