// The limit every figure is divided by: a bare node:http server answering every request with a
// fixed, pre-serialized list body of 20 gallery list items (about 3 KB), as `GET /v1/listings`
// would. Run as a child of packages/bench/src/bench.ts; announces its port as one JSON line on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function bareBody(): Buffer {
  const data = Array.from({ length: 20 }, (_, i) => ({
    id: `lst_01JDQ3Z8W6ZK4M7F0X9YH2C8${String(i).padStart(2, '0')}`,
    address: `${String(12 + i)} Oak St`,
    beds: 3,
    baths: 2,
    sqft: 1850 + i,
    status: 'active',
    client_id: null,
    created_at: `2026-11-${String(21 - (i % 20)).padStart(2, '0')}T10:15:30.123Z`,
  }));
  return Buffer.from(JSON.stringify({ data, pagination: { page: 1, limit: 20, total: 90_000 } }));
}

if (process.argv[2] === '--child' && import.meta.filename === process.argv[1]) {
  const body = bareBody();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, bytes: body.length })}\n`);
  });
  // Never outlive the benchmark: its end of our stdin closes when it goes.
  process.stdin.resume();
  process.stdin.once('close', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
}
