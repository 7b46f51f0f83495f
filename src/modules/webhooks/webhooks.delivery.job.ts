// The `webhook.deliver` job on the durable queue: one delivery of one event to one endpoint,
// signed afresh each attempt (Standard Webhooks), sent to an address checked at this attempt,
// its status and a bounded excerpt of the answer recorded. Retried on the configured schedule
// (about 5 s, 5 min, 30 min, 2 h, 8 h, 24 h, with jitter), then failed. A slow or dead endpoint
// holds at most WEBHOOK_ENDPOINT_CONCURRENCY of the node's slots (the runner's group limit).
import type { Deps } from '../../deps.ts';
import { isoAt } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { finishJob, postponeJob, retryJob, withJobOutcome, type ClaimedJob } from '../queue/queue.ts';
import type { JobHandler } from '../queue/queue.runner.ts';
import { WebhookAgentPool } from './webhooks.agents.ts';
import * as repo from './webhooks.repository.ts';
import { sendWebhook } from './webhooks.sender.ts';
import { signatureHeaders } from './webhooks.signing.ts';

/** A disabled endpoint's deliveries wait; they are looked at again this often (enabling makes them due at once). */
const DISABLED_RECHECK_MS = 60 * 60_000;

export interface DeliveryHandlerOptions {
  /** Random in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/** The event as delivered: its stored data, verbatim, in the event object. */
export const eventPayload = (event: repo.EventRow): string =>
  `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.created_at)},"data":${event.data}}`;

export function deliveryHandler(
  { db, clock, config, resolve }: Pick<Deps, 'db' | 'clock' | 'config' | 'resolve'>,
  log: Log,
  options: DeliveryHandlerOptions = {},
): JobHandler & { close(): void } {
  const settings = config.webhooks;
  const random = options.random ?? Math.random;
  const agents = new WebhookAgentPool({ maxSocketsPerDestination: settings.perEndpoint });
  const timeoutMs = settings.timeoutSeconds * 1000;
  // Each attempt's lease outlives its request (the timeout) with room for the database.
  const leaseMs = timeoutMs + 60_000;
  /** The wait before retry n (1-based), with ±20% jitter so retries of a burst spread out. */
  const retryDelay = (n: number): number | undefined => {
    const base = settings.retrySeconds[n - 1];
    return base === undefined ? undefined : Math.round(base * 1000 * (0.8 + random() * 0.4));
  };

  async function run(job: ClaimedJob): Promise<void> {
    const delivery = await repo.findDelivery(db.kysely, job.subject_id);
    if (delivery?.status !== 'pending') {
      await finishJob(db.kysely, job);
      return;
    }
    const [endpoint, event] = await Promise.all([
      repo.findEndpoint(db.kysely, delivery.account_id, delivery.endpoint_id),
      repo.findEventById(db.kysely, delivery.event_id),
    ]);
    if (endpoint === undefined || event === undefined) {
      // The endpoint was deleted, or the event pruned: its delivery went with it.
      await finishJob(db.kysely, job);
      return;
    }
    if (endpoint.enabled === 0) {
      await postponeJob(db.kysely, job, clock.iso(DISABLED_RECHECK_MS));
      return;
    }
    const now = clock.date();
    const payload = eventPayload(event);
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret !== null && (endpoint.previous_secret_until ?? '') > now.toISOString()) {
      secrets.push(endpoint.previous_secret);
    }
    const result = await sendWebhook(
      {
        url: endpoint.url,
        body: payload,
        headers: { ...signatureHeaders({ id: event.id, timestamp: now, payload, secrets }) },
        timeoutMs,
      },
      { allowPrivate: settings.allowPrivate, resolve, agents },
    );
    const attempts = delivery.attempts + 1;
    const at = clock.iso();
    const common = { responseStatus: result.status, excerpt: result.excerpt };
    if (result.ok) {
      await withJobOutcome(
        db,
        (trx) => finishJob(trx, job),
        (trx) =>
          repo.recordAttempt(trx, delivery.id, {
            ...common,
            status: 'succeeded',
            error: null,
            nextAttemptAt: null,
            deliveredAt: at,
          }),
      );
      return;
    }
    const wait = retryDelay(attempts);
    if (wait === undefined) {
      await withJobOutcome(
        db,
        (trx) => finishJob(trx, job),
        (trx) =>
          repo.recordAttempt(trx, delivery.id, {
            ...common,
            status: 'failed',
            error: result.error,
            nextAttemptAt: null,
            deliveredAt: null,
          }),
      );
      log.warn(
        { delivery_id: delivery.id, endpoint_id: endpoint.id, attempts, reason: result.error },
        'webhook delivery failed',
      );
      return;
    }
    const next = isoAt(clock.now() + wait);
    await withJobOutcome(
      db,
      (trx) => retryJob(trx, job, next, result.error ?? 'not delivered', at),
      (trx) =>
        repo.recordAttempt(trx, delivery.id, {
          ...common,
          status: 'pending',
          error: result.error,
          nextAttemptAt: next,
          deliveredAt: null,
        }),
    );
  }

  return {
    kind: 'webhook.deliver',
    concurrency: settings.concurrency,
    batch: 1,
    leaseMs,
    startMarginMs: 0,
    groupLimit: settings.perEndpoint,
    run,
    faultDelayMs: (n) => retryDelay(Math.min(n, settings.retrySeconds.length)) ?? 60_000,
    close: () => agents.destroy(),
  };
}
