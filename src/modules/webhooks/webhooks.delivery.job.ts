// The `webhook.deliver` job on the durable queue: one delivery of one event to one endpoint,
// signed afresh each attempt (Standard Webhooks), sent to an address checked at this attempt,
// its status and a bounded excerpt of the answer recorded. Retried on the configured schedule
// (about 5 s, 5 min, 30 min, 2 h, 8 h, 24 h, with jitter), then failed. A slow or dead endpoint
// holds at most WEBHOOK_ENDPOINT_CONCURRENCY of the node's slots (the runner's group limit) and
// as many connections, its own: endpoints on one host (of any account) share no connection.
import type { Deps } from '../../deps.ts';
import { isoAt } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { finishJob, postponeJob, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import { WebhookAgentPool } from '../../outbound/agents.ts';
import { FANOUT_BATCH, fanOut } from './webhooks.fanout.ts';
import { outcomeWriter } from './webhooks.outcomes.ts';
import * as repo from './webhooks.repository.ts';
import { sendWebhook } from './webhooks.sender.ts';
import { signatureHeaders } from './webhooks.signing.ts';

/** Events fanned out at a time while the node is busy answering requests. */
const FANOUT_WHEN_BUSY = 10;
/** An attempt waiting on its endpoint this long stands aside (its slot no longer counts). */
const SLOW_ATTEMPT_MS = 250;
/** A disabled endpoint's deliveries wait; they are looked at again this often (enabling makes them due at once). */
const DISABLED_RECHECK_MS = 60 * 60_000;

export interface DeliveryHandlerOptions {
  /** Random in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/** The event as delivered: its stored data, verbatim, in the event object (as GET /v1/events/:id reads it). */
const eventPayload = (
  event: Pick<repo.EventRow, 'id' | 'type' | 'created_at' | 'data'> & { livemode: boolean },
): string =>
  `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.created_at)},"livemode":${event.livemode},"data":${event.data}}`;

export function deliveryHandler(
  { db, clock, config, resolve, metrics }: Pick<Deps, 'db' | 'clock' | 'config' | 'resolve' | 'metrics'>,
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

  const outcomes = outcomeWriter(db, metrics);

  async function run(job: ClaimedJob): Promise<void> {
    // The delivery, its endpoint and its event in one read.
    const delivery = await repo.deliveryToSend(db.kysely, job.subject_id);
    if (delivery === undefined || delivery.status !== 'pending') {
      // Done already, or gone: a deleted endpoint or a pruned event takes its deliveries along.
      await finishJob(db.kysely, job);
      return;
    }
    if (delivery.enabled === 0) {
      await postponeJob(db.kysely, job, clock.iso(DISABLED_RECHECK_MS));
      return;
    }
    const now = clock.date();
    const payload = eventPayload({
      id: delivery.event_id,
      type: delivery.event_type,
      created_at: delivery.event_created_at,
      livemode: delivery.live_account_id === null,
      data: delivery.event_data,
    });
    const secrets = [delivery.secret];
    if (delivery.previous_secret !== null && (delivery.previous_secret_until ?? '') > now.toISOString()) {
      secrets.push(delivery.previous_secret);
    }
    const result = await sendWebhook(
      {
        url: delivery.url,
        body: payload,
        headers: { ...signatureHeaders({ id: delivery.event_id, timestamp: now, payload, secrets }) },
        timeoutMs,
        // Its own connections: another endpoint on the same host that never answers cannot hold them.
        endpointId: delivery.endpoint_id,
      },
      { allowPrivate: settings.allowPrivate, resolve, agents },
    );
    const attempts = delivery.attempts + 1;
    const at = clock.iso();
    const common = { responseStatus: result.status, excerpt: result.excerpt };
    // 410 Gone: the receiver says the endpoint is gone for good. It is disabled at once; this
    // delivery waits with the endpoint's other pending ones, as for any disabled endpoint.
    const gone = result.status === 410 ? { goneEndpointId: delivery.endpoint_id } : {};
    const base = { job, deliveryId: delivery.id, retryError: '', at, ...gone };
    if (result.ok) {
      await outcomes.record({
        ...base,
        retryAt: null,
        attempt: { ...common, status: 'succeeded', error: null, nextAttemptAt: null, deliveredAt: at },
      });
      return;
    }
    const wait = retryDelay(attempts);
    if (wait === undefined) {
      await outcomes.record({
        ...base,
        retryAt: null,
        attempt: { ...common, status: 'failed', error: result.error, nextAttemptAt: null, deliveredAt: null },
      });
      log.warn(
        { delivery_id: delivery.id, endpoint_id: delivery.endpoint_id, attempts, reason: result.error },
        'webhook delivery failed',
      );
      return;
    }
    const next = isoAt(clock.now() + wait);
    await outcomes.record({
      ...base,
      retryAt: next,
      retryError: result.error ?? 'not delivered',
      attempt: { ...common, status: 'pending', error: result.error, nextAttemptAt: next, deliveredAt: null },
    });
  }

  return {
    kind: 'webhook.deliver',
    concurrency: settings.concurrency,
    batch: 1,
    leaseMs,
    startMarginMs: 0,
    groupLimit: settings.perEndpoint,
    // An attempt still waiting for its endpoint after this long frees its slot for other endpoints'
    // deliveries: a dead endpoint, in any account, never delays another's (docs/api.md §15, decisions/0019).
    slowAfterMs: SLOW_ATTEMPT_MS,
    // New events become deliveries (and jobs) just before each claim (decisions/0012).
    // While the node is busy with requests, a few events at a time (decisions/0015).
    prepare: async (small) => {
      const limit = small ? FANOUT_WHEN_BUSY : FANOUT_BATCH;
      return (await fanOut(db, () => clock.iso(), limit)) === limit;
    },
    run,
    faultDelayMs: (n) => retryDelay(Math.min(n, settings.retrySeconds.length)) ?? 60_000,
    close: () => agents.destroy(),
  };
}
