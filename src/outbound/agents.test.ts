// The agent pool's keys: a destination is its protocol, host, port and checked addresses; with an
// owner (the account a media fetch is for) each owner has agents, and so connections, of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebhookAgentPool, type Destination } from './agents.ts';

const at = (address: string): Destination => ({
  protocol: 'http:',
  host: 'files.example',
  port: 80,
  addresses: [{ address, family: 4 }],
});

test('owners never share an agent; the same owner and destination reuse one', () => {
  const pool = new WebhookAgentPool({ maxSocketsPerDestination: 3 });
  const a = pool.agentFor(at('192.0.2.1'), 'acct_a');
  const b = pool.agentFor(at('192.0.2.1'), 'acct_b');
  const shared = pool.agentFor(at('192.0.2.1'));
  assert.notEqual(a, b);
  assert.notEqual(a, shared);
  assert.equal(pool.agentFor(at('192.0.2.1'), 'acct_a'), a);
  assert.equal(pool.agentFor(at('192.0.2.1')), shared);
  assert.notEqual(pool.agentFor(at('192.0.2.2'), 'acct_a'), a, 'other checked addresses, another agent');
  // Each owner's agent has the whole per-destination limit to itself.
  assert.deepEqual([a.maxSockets, b.maxSockets, shared.maxSockets], [3, 3, 3]);
  assert.equal(pool.size, 4);
  pool.destroy();
});
