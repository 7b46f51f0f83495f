// Throughput of the webhook sender (src/modules/webhooks/webhooks.sender.ts) against a fast
// local receiver: N signed deliveries, C at a time, to a bare node:http server in a child
// process on 127.0.0.1 that answers 204. Informational: it prints deliveries per second and
// latency percentiles; nothing is asserted. Private addresses are allowed (loopback is
// otherwise refused), and every send still parses the URL, resolves (with --names) and checks
// the host, and signs the body, as a real delivery does.
//
//   node packages/bench/src/webhook-sender.ts [--requests 20000] [--concurrency 50] [--sockets 10]
//                                        [--endpoints 1] [--names] [--body-bytes 1024]
import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanup, cpuSeconds, HOST, track } from './lib/procs.ts';
import { percentile } from './lib/report.ts';
import type { Resolver } from '../../../src/outbound/address.ts';
import { WebhookAgentPool } from '../../../src/outbound/agents.ts';
import { sendWebhook, type SendResult } from '../../../src/modules/webhooks/webhooks.sender.ts';
import { newWebhookSecret, signatureHeaders } from '../../../src/modules/webhooks/webhooks.signing.ts';

const SELF = fileURLToPath(import.meta.url);

const HELP = `Usage: node packages/bench/src/webhook-sender.ts [options]

Options:
  --requests N       deliveries to send (default 20000)
  --concurrency C    deliveries in flight at once (default 50)
  --sockets S        connections per destination (the pool's maxSocketsPerDestination; default 10)
  --endpoints E      spread deliveries over E endpoints (distinct destinations; default 1)
  --names            endpoints are host names resolved (to 127.0.0.1) by an in-process resolver
                     at every send, instead of the IP literal
  --body-bytes B     size of each JSON body (default 1024)
  --warmup N         unmeasured deliveries first (default 1000)`;

/** The receiver: a bare server in its own process, so it does not share the sender's core. */
function runReceiver(): void {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, HOST, () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as net.AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

async function startReceiver(): Promise<{ port: number; pid: number }> {
  const proc = spawn(process.execPath, [SELF, '--receiver'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const child = track('receiver', proc);
  const lines = createInterface({ input: proc.stdout });
  const port = await Promise.race([
    new Promise<number>((resolve) =>
      lines.once('line', (text) => resolve((JSON.parse(text) as { port: number }).port)),
    ),
    sleep(15_000, undefined, { ref: false }).then(() => {
      throw new Error('the receiver did not start within 15 s');
    }),
  ]);
  return { port, pid: child.pid };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '50' },
      sockets: { type: 'string', default: '10' },
      endpoints: { type: 'string', default: '1' },
      names: { type: 'boolean', default: false },
      'body-bytes': { type: 'string', default: '1024' },
      warmup: { type: 'string', default: '1000' },
      receiver: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.receiver) return runReceiver();
  if (values.help) return console.log(HELP);
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const endpoints = Number(values.endpoints);
  const bodyBytes = Number(values['body-bytes']);

  const { port, pid } = await startReceiver();
  const agents = new WebhookAgentPool({ maxSocketsPerDestination: Number(values.sockets) });
  const resolve: Resolver = () => Promise.resolve([{ address: HOST, family: 4 }]);
  const urls = Array.from({ length: endpoints }, (_, i) =>
    values.names ? `http://endpoint-${i}.bench.invalid:${port}/hook` : `http://${HOST}:${port}/hook/${i}`,
  );
  const secrets = [newWebhookSecret()];
  const filler = 'x'.repeat(Math.max(0, bodyBytes - 80));

  const deliver = async (n: number): Promise<SendResult> => {
    const id = `evt_${n.toString().padStart(10, '0')}`;
    const body = JSON.stringify({
      id,
      type: 'listing.updated',
      created_at: new Date().toISOString(),
      data: { filler },
    });
    const headers = { ...signatureHeaders({ id, timestamp: new Date(), payload: body, secrets }) };
    return sendWebhook({ url: urls[n % endpoints] ?? '', body, headers }, { allowPrivate: true, resolve, agents });
  };

  const run = async (count: number) => {
    const latencies: number[] = [];
    const errors = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const result = await deliver(next++);
        latencies.push(result.durationMs);
        if (!result.ok) errors.set(result.error ?? '?', (errors.get(result.error ?? '?') ?? 0) + 1);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), errors };
  };

  await run(Number(values.warmup));
  const senderCpu = process.cpuUsage();
  const receiverCpu = cpuSeconds(pid);
  const { seconds, latencies, errors } = await run(requests);
  const used = process.cpuUsage(senderCpu);

  console.log(
    `webhook sender: ${requests} deliveries, concurrency ${concurrency}, ${values.sockets} sockets per destination, ` +
      `${endpoints} endpoint(s) by ${values.names ? 'name (resolved per send)' : 'IP literal'}, ${bodyBytes}-byte bodies`,
  );
  console.log(`  ${(requests / seconds).toFixed(0)} deliveries/s over ${seconds.toFixed(2)} s`);
  console.log(
    `  latency ms: p50 ${percentile(latencies, 50)}, p90 ${percentile(latencies, 90)}, p99 ${percentile(latencies, 99)}, max ${latencies.at(-1)}`,
  );
  console.log(
    `  CPU s: sender ${((used.user + used.system) / 1e6).toFixed(2)}, receiver ${(cpuSeconds(pid) - receiverCpu).toFixed(2)}`,
  );
  console.log(`  failures: ${errors.size === 0 ? 'none' : JSON.stringify(Object.fromEntries(errors))}`);
  agents.destroy();
}

try {
  await main();
} finally {
  await cleanup();
}
