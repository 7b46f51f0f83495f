<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Tests\Support\LiveTestCase;

/**
 * The two ways in: `require 'init.php'` without Composer, and Composer with a path repository
 * (no Packagist: the package needs nothing but PHP's extensions), each running the quick start
 * against the real server.
 */
final class ExamplesTest extends LiveTestCase
{
    /** @return array{0: int, 1: string} */
    private static function exec(array $command, ?string $cwd = null, array $extra = []): array
    {
        $env = array_merge(getenv(), $extra, [
            'LIGHTBOX_API_KEY' => self::server()->apiKey,
            'LIGHTBOX_BASE_URL' => self::server()->baseUrl,
            'COMPOSER_DISABLE_NETWORK' => '1',
        ]);
        $proc = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $cwd, $env);
        $out = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        return [proc_close($proc), $out];
    }

    private static function assertQuickstart(string $out): void
    {
        self::assertMatchesRegularExpression('/^gallery lst_\S+ at 42 Quickstart Lane$/m', $out);
        self::assertStringContainsString('uploaded photo image/png', $out);
        self::assertMatchesRegularExpression('#^client link http://127\.0\.0\.1:\d+/\S+$#m', $out);
        self::assertMatchesRegularExpression('/^active galleries: [1-9]\d*$/m', $out);
        self::assertMatchesRegularExpression('/^not found: not_found 404 request \S+$/m', $out);
        self::assertStringContainsString('refused: address, beds', $out);
    }

    public function testWithoutComposerThroughInitPhp(): void
    {
        [$code, $out] = self::exec([PHP_BINARY, dirname(__DIR__) . '/examples/quickstart.php']);
        self::assertSame(0, $code, $out);
        self::assertQuickstart($out);
        self::assertStringContainsString('loaded from ' . dirname(__DIR__) . '/src/LightboxClient.php', $out);
    }

    public function testWithComposerFromAPathRepository(): void
    {
        $composer = trim((string) shell_exec('command -v composer'));
        if ($composer === '') {
            self::markTestSkipped('composer is not installed');
        }
        $project = sys_get_temp_dir() . '/lightbox-composer-' . bin2hex(random_bytes(4));
        mkdir($project);
        try {
            file_put_contents($project . '/composer.json', json_encode([
                'name' => 'studio/site',
                'require' => ['lightbox/lightbox-php' => '*@dev'],
                'repositories' => [
                    ['type' => 'path', 'url' => dirname(__DIR__), 'options' => ['symlink' => false]],
                    ['packagist.org' => false],
                ],
            ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES));
            [$code, $out] = self::exec(
                [$composer, 'install', '--no-interaction', '--no-progress', '--no-dev'],
                $project
            );
            self::assertSame(0, $code, $out);
            file_put_contents($project . '/run.php', "<?php\nrequire __DIR__ . '/vendor/autoload.php';\n"
                . 'require ' . var_export(dirname(__DIR__) . '/examples/quickstart.php', true) . ";\n");
            [$code, $out] = self::exec([PHP_BINARY, $project . '/run.php'], $project);
            self::assertSame(0, $code, $out);
            self::assertQuickstart($out);
            self::assertStringContainsString(
                'loaded from ' . $project . '/vendor/lightbox/lightbox-php/src/LightboxClient.php',
                $out
            );
        } finally {
            exec('rm -rf ' . escapeshellarg($project));
        }
    }

    /**
     * examples/resumable_upload.php picks up an upload an earlier run left half done (its URL in
     * `<file>.upload-url`), and starts again when that upload is gone.
     */
    public function testTheResumableUploadExampleGoesOnAfterACrash(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '16 Resumed Example Road']);
        $path = self::tempFile(self::png() . random_bytes(3 * 1024 * 1024 - strlen(self::png())));
        $state = $path . '.upload-url';
        $example = dirname(__DIR__) . '/examples/resumable_upload.php';
        try {
            // The run that "crashed": the upload exists and holds its first MiB.
            $url = $lb->media->createUpload($gallery->id, filesize($path), basename($path));
            $file = fopen($path, 'rb');
            $lb->media->appendUpload($url, $file, 0, 1024 * 1024);
            fclose($file);
            file_put_contents($state, $url);

            [$code, $out] = self::exec([PHP_BINARY, $example, $gallery->id, $path, '1']);
            self::assertSame(0, $code, $out);
            $name = basename($path);
            self::assertStringStartsWith("{$name}: 33% (1048576/3145728 bytes)\n{$name}: 66% (2097152/3145728 bytes)\n"
                . "{$name}: 100% (3145728/3145728 bytes)\n", $out);
            self::assertMatchesRegularExpression(
                '/^med_\S+: photo, 3145728 bytes, sha256 ' . hash_file('sha256', $path) . '$/m',
                $out
            );
            self::assertFileDoesNotExist($state);

            // An upload that is gone (abandoned, or expired): the example starts again.
            $gone = $lb->media->createUpload($gallery->id, filesize($path), basename($path));
            $lb->media->abandonUpload($gone);
            file_put_contents($state, $gone);
            [$code, $out] = self::exec([PHP_BINARY, $example, $gallery->id, $path, '2']);
            self::assertSame(0, $code, $out);
            self::assertStringStartsWith("the earlier upload is gone: starting again\n{$name}: 66%", $out);
            self::assertStringContainsString(' 3145728 bytes, sha256 ' . hash_file('sha256', $path), $out);
            self::assertFileDoesNotExist($state);
            self::assertCount(2, $lb->media->all($gallery->id));
        } finally {
            unlink($path);
            @unlink($state);
        }
    }

    /** examples/webhook_receiver.php under `php -S` takes a real delivery and refuses a forged one. */
    public function testTheWebhookReceiverExampleVerifiesARealDelivery(): void
    {
        $lb = self::client();
        $port = \Lightbox\Tests\Support\TestServer::freePort();
        $endpoint = $lb->webhookEndpoints->create([
            'url' => "http://127.0.0.1:{$port}/hooks/lightbox",
            'events' => ['listing.updated'],
        ]);
        $log = sys_get_temp_dir() . '/lightbox-example-events-' . bin2hex(random_bytes(4));
        putenv('LIGHTBOX_WEBHOOK_SECRET=' . $endpoint->secret);
        putenv('LIGHTBOX_WEBHOOK_LOG=' . $log);
        $receiver = new \Lightbox\Tests\Support\Process(
            [PHP_BINARY, '-S', '127.0.0.1:' . $port, dirname(__DIR__) . '/examples/webhook_receiver.php'],
            $port,
            $log . '.server'
        );
        putenv('LIGHTBOX_WEBHOOK_SECRET');
        putenv('LIGHTBOX_WEBHOOK_LOG');
        try {
            $gallery = $lb->listings->create(['address' => '15 Receiver Row']);
            $lb->listings->update($gallery->id, ['beds' => 2]);
            $deadline = microtime(true) + 30;
            while (!is_file($log) && microtime(true) < $deadline) {
                usleep(200_000);
            }
            self::assertFileExists($log, 'no delivery verified in 30 s');
            self::assertMatchesRegularExpression(
                "/^evt_\\S+ listing\\.updated {$gallery->id}\n$/",
                (string) file_get_contents($log)
            );
            $delivery = self::settled($lb, $endpoint->id, 1);
            self::assertSame(204, $delivery->response_status);

            // Sent again (at least once): the same event id, so the receiver records it once.
            $lb->webhookEndpoints->retryDelivery($endpoint->id, $delivery->id);
            self::assertSame(204, self::settled($lb, $endpoint->id, 2)->response_status);
            self::assertSame(1, substr_count((string) file_get_contents($log), "\n"));

            $forged = curl_init("http://127.0.0.1:{$port}/hooks/lightbox");
            curl_setopt_array($forged, [
                CURLOPT_POSTFIELDS => '{"id":"evt_forged","type":"listing.deleted","data":{"object":{"id":"x"}}}',
                CURLOPT_HTTPHEADER => [
                    'Webhook-Id: msg_forged',
                    'Webhook-Timestamp: ' . time(),
                    'Webhook-Signature: v1,' . base64_encode(str_repeat('x', 32)),
                ],
                CURLOPT_RETURNTRANSFER => true,
            ]);
            self::assertSame('no matching signature', curl_exec($forged));
            self::assertSame(400, curl_getinfo($forged, CURLINFO_RESPONSE_CODE));
            self::assertStringNotContainsString('evt_forged', (string) file_get_contents($log));
        } finally {
            $receiver->stop();
            $lb->webhookEndpoints->delete($endpoint->id);
            @unlink($log);
        }
    }

    /** The endpoint's latest delivery once it has made `$attempts` attempts and is no longer pending. */
    private static function settled(\Lightbox\LightboxClient $lb, string $endpointId, int $attempts): object
    {
        $deadline = microtime(true) + 30;
        do {
            $delivery = $lb->webhookEndpoints->allDeliveries($endpointId)->data[0];
            if ($delivery->attempts >= $attempts && $delivery->status !== 'pending') {
                return $delivery;
            }
            usleep(200_000);
        } while (microtime(true) < $deadline);
        self::fail("the delivery did not reach {$attempts} attempt(s) in 30 s");
    }
}
