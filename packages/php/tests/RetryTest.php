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
}
