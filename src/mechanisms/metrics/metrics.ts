// What an operator's Prometheus scrapes (docs/deploying.md, Metrics): requests by route, the job
// queue by kind, webhook and email outcomes, storage errors. One registry per process (per Deps,
// so tests that build several apps in one process keep their counts apart), served by
// metrics.server.ts on METRICS_PORT. The series names are the contract of
// deploy/grafana-dashboard.json; test/metrics.test.ts holds the two together.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { classifySendError } from '../../mail/mailer.ts';
import type { MediaStorage } from '../../storage/storage.ts';
import { StorageNotFoundError } from '../../storage/storage.ts';

/** The queue as one scrape sees it, per kind of job (src/mechanisms/queue/queue.repository.ts). */
interface QueueStat {
  kind: string;
  /** Jobs waiting, running or due later. */
  queued: number;
  /** Of those, due now and held by no worker: what the workers are behind by. */
  due: number;
  /** ISO time the oldest job of the kind was queued. */
  oldest: string;
}

type WebhookOutcome = 'succeeded' | 'retry' | 'failed';
type EmailOutcome = 'sent' | 'retry' | 'rejected';

export interface Metrics {
  readonly registry: Registry;
  /** One answered request: its route's pattern (never the raw URL: ids would make a series each). */
  request(method: string, route: string, status: number, seconds: number): void;
  webhook(outcome: WebhookOutcome): void;
  email(outcome: EmailOutcome): void;
  storageError(operation: string): void;
  /** Reads the queue at each scrape (set once the database is open). */
  readQueueWith(read: (now: string) => Promise<QueueStat[]>): void;
  /** Node's own series (memory, CPU, event-loop lag, GC): only for a process that serves /metrics. */
  collectProcessMetrics(): void;
}

/** Request durations, in seconds: from a cached 304 to a long ZIP. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(clock: Clock): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'lightbox_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'lightbox_http_request_duration_seconds',
    help: 'Time from a request to its response, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'lightbox_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retry (failed, tried again later), failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const emails = new Counter({
    name: 'lightbox_emails_total',
    help: 'Emails handed to the mailer, by outcome: sent, retry (a transient failure), rejected (a final one).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: 'lightbox_storage_errors_total',
    help: 'Media storage operations that failed (a missing key is not counted), by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  let readQueue: ((now: string) => Promise<QueueStat[]>) | undefined;
  let stats: Promise<QueueStat[]> | undefined;
  /** The three queue gauges come from one query per scrape, whichever of them asks first. */
  const queueStats = (): Promise<QueueStat[]> => {
    stats ??= (readQueue?.(clock.iso()) ?? Promise.resolve([])).finally(() => {
      stats = undefined;
    });
    return stats;
  };
  const queueGauge = (name: string, help: string, value: (stat: QueueStat) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const stat of await queueStats()) this.set({ kind: stat.kind }, value(stat));
      },
    });
  queueGauge(
    'lightbox_jobs_queued',
    'Jobs on the durable queue (waiting, running or due later), by kind.',
    (s) => s.queued,
  );
  queueGauge('lightbox_jobs_due', 'Jobs due now that no worker holds, by kind: the backlog.', (s) => s.due);
  queueGauge('lightbox_jobs_oldest_age_seconds', 'Age of the oldest job on the queue, by kind.', (s) =>
    Math.max(0, (clock.now() - Date.parse(s.oldest)) / 1000),
  );
  let processMetrics = false;
  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      durations.observe({ method, route }, seconds);
    },
    webhook: (outcome) => webhooks.inc({ outcome }),
    email: (outcome) => emails.inc({ outcome }),
    storageError: (operation) => storageErrors.inc({ operation }),
    readQueueWith(read) {
      readQueue = read;
    },
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix: 'lightbox_' });
    },
  };
}

/** The mailer, counting each send's outcome as the notification jobs will judge it. */
export function countedMailer(mailer: Mailer, metrics: Metrics): Mailer {
  return {
    kind: mailer.kind,
    async send(message) {
      try {
        const sent = await mailer.send(message);
        metrics.email('sent');
        return sent;
      } catch (err) {
        metrics.email(classifySendError(err).transient ? 'retry' : 'rejected');
        throw err;
      }
    },
    close: () => mailer.close(),
  };
}

/** The media storage, counting its failures; a key that is not there is an answer, not an error. */
export function countedStorage(storage: MediaStorage, metrics: Metrics): MediaStorage {
  const count =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        if (!(err instanceof StorageNotFoundError)) metrics.storageError(operation);
        throw err;
      }
    };
  const counted: MediaStorage = {
    kind: storage.kind,
    put: count('put', storage.put.bind(storage)),
    get: count('get', storage.get.bind(storage)),
    delete: count('delete', storage.delete.bind(storage)),
    list: (prefix) => storage.list(prefix),
  };
  // The optional methods stay absent where the storage has none (callers test for them).
  if (storage.openReader !== undefined) counted.openReader = count('open', storage.openReader.bind(storage));
  if (storage.removeEmptyFolders !== undefined)
    counted.removeEmptyFolders = count('remove_empty_folders', storage.removeEmptyFolders.bind(storage));
  if (storage.localPath !== undefined) counted.localPath = storage.localPath.bind(storage);
  if (storage.close !== undefined) counted.close = storage.close.bind(storage);
  return counted;
}
