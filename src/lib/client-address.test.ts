// One grouping of client addresses for every limit: the /v1 rate limit's buckets and the
// sign-in throttle's subjects name the same groups.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addressGroup } from './client-address.ts';
import { addressBucket } from '../http/rate-limit.ts';

describe('addressGroup', () => {
  test('IPv4 as it is, IPv4-mapped IPv6 as its IPv4, IPv6 by /64', () => {
    assert.equal(addressGroup('203.0.113.9'), '203.0.113.9');
    assert.equal(addressGroup('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(addressGroup('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(addressGroup('::1'), '0:0:0:0::/64');
    assert.equal(addressGroup('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  test('the rate limit buckets the same groups the sign-in throttle counts', () => {
    for (const ip of ['203.0.113.9', '::ffff:203.0.113.9', '2001:db8::1', '2001:db8:1:2:aaaa::1', '::1']) {
      const group = addressGroup(ip);
      assert.ok(addressBucket(ip) === `a:${group}` || addressBucket(ip) === `a6:${group}`, ip);
    }
    assert.equal(addressBucket('2001:db8::1'), 'a6:2001:db8:0:0::/64');
    assert.equal(addressBucket('192.0.2.1'), 'a:192.0.2.1');
  });
});
