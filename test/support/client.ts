// The TypeScript client (packages/client) against a real server: the app listening on a free
// port of 127.0.0.1 on a real database (SQLite, or PostgreSQL when DATABASE_URL says so), an
// account with a key, and a client whose requests are recorded (method and path), so a suite can
// check which operations of the OpenAPI document it called.
import { Lightbox } from '../../packages/client/src/node.ts';
import type { ClientOptions } from '../../packages/client/src/index.ts';
import { createAccount, createTestContext, type TestAccount, type TestContext } from './test-app.ts';
import { freePort } from './process-helpers.ts';
import { deliveryRunner, type DeliveryRunner } from './webhooks.ts';
import { startReceiver, type Receiver } from './loopback-receivers.ts';

export interface ClientServer {
  ctx: TestContext;
  base: string;
  account: TestAccount;
  lb: Lightbox;
  /** Every request the client sent: `METHOD /path`. */
  sent: string[];
  /** Another client on the same server (a key, options of its own). */
  client: (options?: Partial<ClientOptions>) => Lightbox;
  close: () => Promise<void>;
}

export async function startClientServer(env: Record<string, string> = {}): Promise<ClientServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ PUBLIC_URL: base, ...env });
  await ctx.app.listen({ host: '127.0.0.1', port });
  const account = await createAccount(ctx);
  const sent: string[] = [];
  const client = (options: Partial<ClientOptions> = {}): Lightbox => {
    const lb = new Lightbox({ apiKey: account.key, baseUrl: base, ...options });
    // Recorded at the client's own fetch (the Node one, which sends uploads over node:http).
    const inner = lb.http.fetch;
    const recording: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      return inner(input, init);
    };
    Object.defineProperty(lb.http, 'fetch', { value: recording });
    return lb;
  };
  return { ctx, base, account, lb: client(), sent, client, close: () => ctx.close() };
}

export interface ClientWebhookServer extends ClientServer {
  /** A receiver on 127.0.0.1 answering 204, keeping each request. */
  receiver: Receiver;
  /** The delivery job, run in-process on demand. */
  runner: DeliveryRunner;
}

/** startClientServer with webhooks able to reach loopback, a receiver and the delivery runner. */
export async function startClientWebhookServer(): Promise<ClientWebhookServer> {
  const s = await startClientServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  const runner = deliveryRunner(s.ctx.deps);
  return {
    ...s,
    receiver,
    runner,
    close: async () => {
      await runner.close();
      await receiver.close();
      await s.close();
    },
  };
}

/** The document's operations as `METHOD /path/{param}` with their operationId. */
export function documentOperations(doc: Record<string, unknown>): { id: string; method: string; path: string }[] {
  const ops: { id: string; method: string; path: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].includes(method)) continue;
      ops.push({ id: op.operationId ?? `${method} ${path}`, method: method.toUpperCase(), path });
    }
  }
  return ops;
}

/** Whether `sent` (`METHOD /path`) matches an operation's method and path template. */
export function matches(op: { method: string; path: string }, sent: string): boolean {
  const pattern = new RegExp(`^${op.method} ${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(sent);
}
