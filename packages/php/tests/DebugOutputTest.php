<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\HttpClient\ClientInterface;
use Lightbox\HttpClient\Response;
use Lightbox\LightboxClient;
use PHPUnit\Framework\TestCase;

/**
 * A client printed while debugging (var_dump, print_r, var_export, a log of `$lb`) never shows
 * its API key: only its prefix and last 4 characters, as stripe-php shows a key. Requests still
 * send the whole key.
 */
final class DebugOutputTest extends TestCase
{
    private const KEY = 'lbx_test_S3cretPartOfTheKeyNobodySees9f2c';

    /** @return array{LightboxClient, \ArrayObject<int, array<string, string>>} */
    private static function clientAndSent(): array
    {
        $sent = new \ArrayObject();
        $http = new class ($sent) implements ClientInterface {
            /** @param \ArrayObject<int, array<string, string>> $sent */
            public function __construct(private readonly \ArrayObject $sent)
            {
            }

            public function send(string $method, string $url, array $headers, mixed $body, array $options): Response
            {
                $this->sent->append($headers);
                return new Response(200, ['content-type' => 'application/json'], '{"id":"acc_1","object":"account"}');
            }
        };
        $lb = new LightboxClient(['api_key' => self::KEY, 'base_url' => 'http://127.0.0.1:9', 'http_client' => $http]);
        return [$lb, $sent];
    }

    public function testVarDumpPrintRAndVarExportHideTheKey(): void
    {
        [$lb] = self::clientAndSent();
        ob_start();
        var_dump($lb);
        $dumped = (string) ob_get_clean();
        $outputs = [
            'var_dump' => $dumped,
            'print_r' => print_r($lb, true),
            // The client holds itself through its services, which var_export refuses: its requestor.
            'var_export' => var_export($lb->getRequestor(), true),
            'var_dump of the requestor' => (static function (object $o): string {
                ob_start();
                var_dump($o);
                return (string) ob_get_clean();
            })($lb->getRequestor()),
        ];
        foreach ($outputs as $how => $output) {
            self::assertStringNotContainsString('S3cretPartOfTheKeyNobodySees', $output, $how);
        }
        self::assertStringContainsString('lbx_test_********9f2c', $dumped);
        self::assertStringContainsString('http://127.0.0.1:9', $dumped, 'the rest still shows');
    }

    public function testRequestsStillSendTheWholeKey(): void
    {
        [$lb, $sent] = self::clientAndSent();
        $lb->request('GET', '/v1/account');
        self::assertCount(1, $sent);
        self::assertSame('Bearer ' . self::KEY, $sent[0]['authorization'] ?? null);
    }
}
