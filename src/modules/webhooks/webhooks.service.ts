// Webhook endpoints, the events they hear and the deliveries made to them (docs/api.md §15). Events
// themselves are recorded by every feature's writes (src/mechanisms/events/events.entry.ts); delivery is the
// `webhook.deliver` job (webhooks.delivery.job.ts). Every query is scoped by account.
import type { Deps } from '../../deps.ts';
import type { EventType } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import { listCursors } from '../../db/keyset.ts';
import { cursorPage, pageRequest, sinceValue, type PagingQuery } from '../../lib/cursor-page.ts';
import type { Page } from '../../lib/pagination.ts';
import { readCount } from '../../mechanisms/counts/counts.repository.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import { checkWebhookUrl, resolveAndCheck } from '../../outbound/address.ts';
import { recordTestEvent } from './webhooks.deliveries.ts';
import { pruneEvents } from './webhooks.prune.ts';
import * as repo from './webhooks.repository.ts';
import type {
  DeliveryListQueryType,
  EventListQueryType,
  EventObjectType,
  WebhookDeliveryType,
  WebhookEndpointCreateInput,
  WebhookEndpointType,
  WebhookEndpointUpdateInput,
  WebhookEndpointWithSecretType,
} from './webhooks.schemas.ts';
import { newWebhookSecret } from './webhooks.signing.ts';

/** Named in a refusal that only private and local addresses cause (a local receiver while developing). */
const ALLOW_PRIVATE_HINT = 'WEBHOOK_ALLOW_PRIVATE=true allows private and local addresses (for development)';

/** After a rotation, the old secret signs too for this long. */
const PREVIOUS_SECRET_MS = 24 * 3_600_000;

const toEndpoint = (row: repo.EndpointRow): WebhookEndpointType => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  description: row.description,
  enabled: row.enabled === 1,
  disabled_reason: row.enabled === 1 ? null : (row.disabled_reason ?? 'manual'),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** `livemode`: the mode of the key that reads it, which is the mode of its data (docs/api.md §20). */
const toEvent = (row: repo.EventRow, livemode: boolean): EventObjectType => ({
  id: row.id,
  type: row.type as EventType,
  created_at: row.created_at,
  livemode,
  data: JSON.parse(row.data) as EventObjectType['data'],
});

const toDelivery = (row: repo.DeliveryRow): WebhookDeliveryType => ({
  id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: row.attempts,
  response_status: row.response_status,
  last_error: row.last_error,
  next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
  created_at: row.created_at,
  delivered_at: row.delivered_at,
});

/** The position of a row in a list ordered by creation (newest first). */
const byCreation = (row: { created_at: string; id: string }) => ({ value: row.created_at, id: row.id });

/** `["*"]` alone, or a list of types without `*`: the stored form. */
function eventsOf(events: readonly string[] | undefined): string {
  const list = events ?? ['*'];
  if (list.includes('*') && list.length > 1) {
    throw new AppError('validation_error', 'events: "*" stands alone (it means every type)', [
      { field: 'events', message: 'must be ["*"] alone, or a list of event types' },
    ]);
  }
  return JSON.stringify([...new Set(list)]);
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

export function createWebhooksService({
  db,
  clock,
  config,
  resolve,
  writes,
}: Pick<Deps, 'db' | 'clock' | 'config' | 'resolve'> & { writes: Writes }) {
  const policy = { allowPrivate: config.webhooks.allowPrivate, resolve };

  /** 400 unless the URL is http(s) and its host is not, and does not resolve to, an internal address. */
  async function checkUrl(raw: string): Promise<string> {
    const refused = async (reason: string): Promise<AppError> => {
      // Refused only for being local or private: say which setting allows that (development).
      const hint = (await allowedIfPrivate(raw)) ? `; the server setting ${ALLOW_PRIVATE_HINT}` : '';
      return new AppError('validation_error', `url ${reason}${hint}`, [{ field: 'url', message: reason + hint }]);
    };
    const syntax = checkWebhookUrl(raw, { allowPrivate: policy.allowPrivate });
    if (!syntax.ok) throw await refused(syntax.reason);
    const host = await resolveAndCheck(syntax.url.hostname, policy);
    // A name that does not resolve yet is accepted; every delivery checks again.
    if (host.ok === false) throw await refused(host.reason);
    // Kept as written (it reads back as sent); every delivery parses and checks it again.
    return raw;
  }

  /** Whether `raw`, refused now, would pass were private and local addresses allowed. */
  async function allowedIfPrivate(raw: string): Promise<boolean> {
    if (policy.allowPrivate) return false;
    const syntax = checkWebhookUrl(raw, { allowPrivate: true });
    if (!syntax.ok) return false;
    return (await resolveAndCheck(syntax.url.hostname, { ...policy, allowPrivate: true })).ok !== false;
  }

  async function endpointRow(accountId: string, id: string): Promise<repo.EndpointRow> {
    const row = hasIdShape('whe', id) ? await repo.findEndpoint(db.kysely, accountId, id) : undefined;
    if (row === undefined) throw notFound('Webhook endpoint');
    return row;
  }

  return {
    async create(accountId: string, input: WebhookEndpointCreateInput): Promise<WebhookEndpointWithSecretType> {
      const url = await checkUrl(input.url);
      const now = clock.iso();
      const row = await writes.run(accountId, { now }, ({ trx }) =>
        repo.insertEndpoint(trx, {
          id: newId('whe'),
          account_id: accountId,
          url,
          events: eventsOf(input.events),
          description: input.description ?? null,
          enabled: 1,
          disabled_reason: null,
          secret: newWebhookSecret(),
          previous_secret: null,
          previous_secret_until: null,
          created_at: now,
          updated_at: now,
        }),
      );
      return { ...toEndpoint(row), secret: row.secret };
    },

    async list(accountId: string, query: PagingQuery): Promise<Page<WebhookEndpointType>> {
      const codec = await listCursors(db);
      const scope = { list: 'webhook_endpoints', accountId, params: {} };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.listEndpoints(db.kysely, accountId, {
          limit: request.fetch,
          offset: request.offset,
          after: request.after,
        }),
        repo.countEndpoints(db.kysely, accountId),
      ]);
      return cursorPage(rows, request, total, codec, scope, byCreation, toEndpoint);
    },

    async get(accountId: string, id: string): Promise<WebhookEndpointType> {
      return toEndpoint(await endpointRow(accountId, id));
    },

    async update(accountId: string, id: string, patch: WebhookEndpointUpdateInput): Promise<WebhookEndpointType> {
      const current = await endpointRow(accountId, id);
      const url = patch.url === undefined ? undefined : await checkUrl(patch.url);
      const now = clock.iso();
      return writes.run(accountId, { now }, async (w) => {
        const row = await repo.updateEndpoint(w.trx, accountId, id, {
          ...(url === undefined ? {} : { url }),
          ...(patch.events === undefined ? {} : { events: eventsOf(patch.events) }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          // Disabling by hand says so; disabling one already disabled keeps its reason (a `gone`
          // endpoint stays `gone` until it is enabled again); enabling clears it.
          ...(patch.enabled === undefined || (!patch.enabled && current.enabled === 0)
            ? {}
            : { enabled: patch.enabled ? 1 : 0, disabled_reason: patch.enabled ? null : 'manual' }),
          updated_at: now,
        });
        if (row === undefined) throw notFound('Webhook endpoint');
        // Enabled again: the retries that waited while it was disabled are due now.
        if (current.enabled === 0 && row.enabled === 1) await dueNow(w, id);
        return toEndpoint(row);
      });
    },

    async remove(accountId: string, id: string): Promise<void> {
      const deleted =
        hasIdShape('whe', id) &&
        (await writes.run(accountId, {}, ({ trx }) => repo.deleteEndpoint(trx, accountId, id)));
      if (!deleted) {
        throw notFound('Webhook endpoint');
      }
    },

    /** A new secret; the old one keeps signing for 24 hours (both signatures are sent). */
    async rotateSecret(accountId: string, id: string): Promise<WebhookEndpointWithSecretType> {
      const current = await endpointRow(accountId, id);
      const now = clock.iso();
      const row = await writes.run(accountId, { now }, ({ trx }) =>
        repo.updateEndpoint(trx, accountId, id, {
          secret: newWebhookSecret(),
          previous_secret: current.secret,
          previous_secret_until: clock.iso(PREVIOUS_SECRET_MS),
          updated_at: now,
        }),
      );
      if (row === undefined) throw notFound('Webhook endpoint');
      return { ...toEndpoint(row), secret: row.secret };
    },

    /** Sends a webhook.test event to this endpoint (whatever it subscribes to); 409 while disabled. */
    async test(accountId: string, id: string): Promise<WebhookDeliveryType> {
      const endpoint = await endpointRow(accountId, id);
      if (endpoint.enabled === 0) throw new AppError('conflict', 'This endpoint is disabled; enable it to test it');
      const now = clock.iso();
      const deliveryId = await writes.run(accountId, { now }, (w) => recordTestEvent(w, id));
      const row = deliveryId === undefined ? undefined : await repo.findDelivery(db.kysely, deliveryId);
      if (row === undefined) throw new Error('the test delivery was not recorded');
      return toDelivery(row);
    },

    async deliveries(accountId: string, id: string, query: DeliveryListQueryType): Promise<Page<WebhookDeliveryType>> {
      await endpointRow(accountId, id);
      const codec = await listCursors(db);
      const scope = { list: 'webhook_deliveries', accountId, params: { endpoint_id: id, status: query.status } };
      const request = pageRequest(query, codec, scope);
      const { rows, total } = await repo.listDeliveries(db.kysely, id, query.status, {
        limit: request.fetch,
        offset: request.offset,
        after: request.after,
      });
      return cursorPage(rows, request, total, codec, scope, byCreation, toDelivery);
    },

    /** Sends a delivery again now (whatever its status); 202. */
    async retry(accountId: string, id: string, deliveryId: string): Promise<WebhookDeliveryType> {
      await endpointRow(accountId, id);
      const delivery = hasIdShape('whd', deliveryId)
        ? await repo.findDeliveryOf(db.kysely, accountId, id, deliveryId)
        : undefined;
      if (delivery === undefined) throw notFound('Delivery');
      const now = clock.iso();
      await writes.run(accountId, { now }, async (w) => {
        await repo.markPendingNow(w.trx, deliveryId, now);
        // Its job is made due now; a job that is running (leased) is an attempt being made now,
        // and a second job beside it would send the delivery twice at once.
        if (
          !(await w.runNow('webhook.deliver', deliveryId)) &&
          (await pendingJob(w.trx, 'webhook.deliver', deliveryId)) === undefined
        ) {
          w.enqueue({ kind: 'webhook.deliver', accountId, subjectId: deliveryId, groupKey: id, runAt: now });
        }
      });
      const row = await repo.findDelivery(db.kysely, deliveryId);
      if (row === undefined) throw notFound('Delivery');
      return toDelivery(row);
    },

    /** `livemode`: the mode of the caller's key, which is the mode of `accountId`'s data. */
    async events(accountId: string, query: EventListQueryType, livemode: boolean): Promise<Page<EventObjectType>> {
      const codec = await listCursors(db);
      const createdSince = sinceValue('created_since', query.created_since);
      const scope = { list: 'events', accountId, params: { type: query.type, created_since: createdSince } };
      const request = pageRequest(query, codec, scope);
      const [rows, total] = await Promise.all([
        repo.listEvents(db.kysely, accountId, query.type, {
          limit: request.fetch,
          offset: request.offset,
          after: request.after,
          createdSince,
        }),
        createdSince === undefined
          ? readCount(db.kysely, accountId, query.type === undefined ? 'events' : `events:${query.type}`)
          : repo.countEventsSince(db.kysely, accountId, query.type, createdSince),
      ]);
      return cursorPage(rows, request, total, codec, scope, byCreation, (row) => toEvent(row, livemode));
    },

    /** Deletes events older than 30 days (their deliveries go with them), a batch at a time. */
    pruneEvents: (): Promise<number> => pruneEvents({ db, clock, writes }),

    async event(accountId: string, id: string, livemode: boolean): Promise<EventObjectType> {
      const row = hasIdShape('evt', id) ? await repo.findEvent(db.kysely, accountId, id) : undefined;
      if (row === undefined) throw notFound('Event');
      return toEvent(row, livemode);
    },
  };
}

/** The pending deliveries of an endpoint, due now (it was enabled again). */
async function dueNow(w: Write, endpointId: string): Promise<void> {
  for (const id of await repo.pendingDeliveryIds(w.trx, endpointId)) {
    await repo.markPendingNow(w.trx, id, w.now);
    await w.runNow('webhook.deliver', id);
  }
}
