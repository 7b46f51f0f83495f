// Helpers for the end-to-end webhook suites: a receiver on 127.0.0.1 that verifies every
// delivery with the `standardwebhooks` package (as a studio's receiver would), the delivery job
// run in-process on the context's database and clock, and the endpoint routes over HTTP.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { deliveryHandler } from '../../src/modules/webhooks/webhooks.delivery.job.ts';
import { startReceiver, type Received, type Receiver } from './loopback-receivers.ts';
import { createJobRunner, type JobRunner } from '../../src/mechanisms/queue/queue.runner.ts';
import type { Deps } from '../../src/deps.ts';
import type { Log } from '../../src/lib/log.ts';
import { call, type TestAccount, type TestContext } from './test-app.ts';

export interface DeliveredEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

export interface VerifiedDelivery {
  event: DeliveredEvent;
  headers: http.IncomingHttpHeaders;
  /** The secrets (of those the receiver holds) that verified it. */
  verifiedBy: string[];
}

export interface VerifyingReceiver extends Receiver {
  /** Deliveries that verified with at least one secret, in arrival order. */
  verified: VerifiedDelivery[];
  /** Requests that verified with none of the secrets. */
  rejected: Received[];
  /** The verified events, in arrival order. */
  events(): DeliveredEvent[];
  /** Forgets what was received so far. */
  clear(): void;
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const answer204: Answer = (_req, res) => res.writeHead(204).end();

/**
 * A receiver verifying each request with every secret `secrets()` returns at that moment; a request
 * no secret verifies is answered 400 and kept in `rejected`. `answer` replies to verified ones.
 */
export async function verifyingReceiver(
  secrets: () => string[],
  answer: Answer = answer204,
): Promise<VerifyingReceiver> {
  const verified: VerifiedDelivery[] = [];
  const rejected: Received[] = [];
  const receiver = await startReceiver((req, res, body) => {
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    const by = secrets().filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (by.length === 0) {
      rejected.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(400).end('signature did not verify');
      return;
    }
    verified.push({ event: JSON.parse(body) as DeliveredEvent, headers: req.headers, verifiedBy: by });
    answer(req, res, body);
  });
  return Object.assign(receiver, {
    verified,
    rejected,
    events: () => verified.map((v) => v.event),
    clear: () => {
      verified.length = 0;
      rejected.length = 0;
      receiver.received.length = 0;
    },
  });
}

/** Resolves once `check` holds (looked at every 10 ms); fails after 300 looks. */
export async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('the condition never held');
}

export const quietLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface DeliveryRunner extends JobRunner {
  /** Stops the runner (it closes the handler's connections). */
  close(): Promise<void>;
}

/**
 * The `webhook.deliver` runner as the serve process runs it (src/jobs.ts), on the context's
 * database, config and clock, with a fixed jitter (0.5: every wait is exactly its configured base).
 */
export function deliveryRunner(deps: Deps, log: Log = quietLog): DeliveryRunner {
  const handler = deliveryHandler(deps, log, { random: () => 0.5 });
  const runner = createJobRunner(deps, log, handler, { pollMs: 20 });
  return Object.assign(runner, { close: () => runner.stop(5000) });
}

export interface EndpointJson {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  created_at: string;
  updated_at: string;
  secret?: string;
}

export interface DeliveryJson {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** POST /v1/webhook_endpoints, asserted 201; the endpoint with its secret. */
export async function createEndpoint(
  ctx: TestContext,
  account: TestAccount,
  body: Record<string, unknown>,
): Promise<EndpointJson & { secret: string }> {
  const res = await call(ctx, 'POST', '/v1/webhook_endpoints', { key: account.key, body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<EndpointJson & { secret: string }>();
}

/** GET /v1/webhook_endpoints/:id/deliveries (newest first), asserted 200. */
export async function listDeliveries(
  ctx: TestContext,
  account: TestAccount,
  endpointId: string,
): Promise<DeliveryJson[]> {
  const res = await call(ctx, 'GET', `/v1/webhook_endpoints/${endpointId}/deliveries`, {
    key: account.key,
    query: { limit: '100' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: DeliveryJson[] }>().data;
}

/** The one delivery of an endpoint (asserting there is exactly one). */
export async function onlyDelivery(ctx: TestContext, account: TestAccount, endpointId: string): Promise<DeliveryJson> {
  const list = await listDeliveries(ctx, account, endpointId);
  assert.equal(list.length, 1, JSON.stringify(list));
  return list[0] as DeliveryJson;
}
