<?php

declare(strict_types=1);

namespace Lightbox\Tests\Support;

use Lightbox\LightboxClient;
use PHPUnit\Framework\TestCase;

/**
 * A test against the shared real server.
 */
abstract class LiveTestCase extends TestCase
{
    protected static function server(): TestServer
    {
        return TestServer::main();
    }

    /** @param array<string, mixed> $options */
    protected static function client(array $options = []): LightboxClient
    {
        $lb = new LightboxClient($options + [
            'api_key' => self::server()->apiKey,
            'base_url' => self::server()->baseUrl,
        ]);
        // No real waits between retries in tests: the retries themselves are what is checked.
        $lb->getRequestor()->setSleep(static function (float $seconds): void {
        });
        return $lb;
    }

    /** A small valid PNG (1x1), for uploads. */
    protected static function png(): string
    {
        return (string) base64_decode(
            'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
        );
    }

    protected static function tempFile(string $bytes, string $suffix = '.png'): string
    {
        $path = sys_get_temp_dir() . '/lbx-' . bin2hex(random_bytes(5)) . $suffix;
        file_put_contents($path, $bytes);
        return $path;
    }
}
