<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Tests\Support\LiveTestCase;
use Lightbox\Tests\Support\Process;

final class RetryTest extends LiveTestCase
{
    public function testAPostWhoseAnswerIsLostIsRetriedAndMakesOneResource(): void
    {
        $proxy = Process::proxy(self::server()->port, 'drop-first-post');
        try {
            $direct = self::client();
            $before = $direct->clients->all(['limit' => 1])->pagination->total;
            $lb = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $email = 'retry-' . bin2hex(random_bytes(3)) . '@example.com';
            $client = $lb->clients->create(['name' => 'Retried', 'email' => $email]);
            self::assertSame('true', $client->getLastResponse()?->header('idempotent-replayed'));
            self::assertSame(['POST /v1/clients dropped', 'POST /v1/clients passed'], $proxy->lines());
            self::assertSame($before + 1, $direct->clients->all(['limit' => 1])->pagination->total);
            self::assertSame($client->id, $direct->clients->all(['limit' => 1])->data[0]->id);
        } finally {
            $proxy->stop();
        }
    }

    public function testWithoutRetriesTheLostAnswerIsAConnectionException(): void
    {
        $proxy = Process::proxy(self::server()->port, 'drop-first-post');
        try {
            $lb = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port, 'max_retries' => 0]);
            $this->expectException(\Lightbox\Exception\ConnectionException::class);
            $lb->listings->create(['address' => 'Lost answer']);
        } finally {
            $proxy->stop();
        }
    }

    public function testA429IsRetriedAfterItsRetryAfterWithTheSameIdempotencyKey(): void
    {
        $proxy = Process::proxy(self::server()->port, 'limit-first-post:1');
        try {
            $lb = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $waits = [];
            $lb->getRequestor()->setSleep(static function (float $seconds) use (&$waits): void {
                $waits[] = $seconds;
                usleep((int) ($seconds * 1_000_000));
            });
            $address = 'Retry-After ' . bin2hex(random_bytes(4)) . ' Lane';
            $started = microtime(true);
            $gallery = $lb->listings->create(['address' => $address]);
            self::assertGreaterThanOrEqual(1.0, microtime(true) - $started);
            self::assertSame([1.0], $waits);
            self::assertSame($address, $gallery->address);
            $lines = $proxy->lines();
            self::assertCount(2, $lines);
            self::assertMatchesRegularExpression('#^POST /v1/listings limited key=(\S+)$#', $lines[0]);
            $key = substr($lines[0], strpos($lines[0], 'key=') + 4);
            self::assertMatchesRegularExpression('/^[0-9a-f-]{36}$/', $key);
            self::assertSame('POST /v1/listings passed key=' . $key, $lines[1]);
            self::assertCount(1, self::client()->listings->all(['search' => $address])->data);
        } finally {
            $proxy->stop();
        }
    }

    public function testARetryAfterOverAMinuteIsThrownAtOnce(): void
    {
        $proxy = Process::proxy(self::server()->port, 'limit-first-post:120');
        try {
            $lb = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $waits = [];
            $lb->getRequestor()->setSleep(static function (float $seconds) use (&$waits): void {
                $waits[] = $seconds;
            });
            try {
                $lb->listings->create(['address' => 'Not now Lane']);
                self::fail('no RateLimitException');
            } catch (\Lightbox\Exception\RateLimitException $e) {
                self::assertSame(429, $e->getHttpStatus());
                self::assertSame(120.0, $e->getRetryAfter());
                self::assertSame('req_proxy', $e->getRequestId());
            }
            self::assertSame([], $waits);
            self::assertCount(1, $proxy->lines());
        } finally {
            $proxy->stop();
        }
    }
}
