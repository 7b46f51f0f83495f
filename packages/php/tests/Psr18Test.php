<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\Exception\NotFoundException;
use Lightbox\LightboxClient;
use Lightbox\Tests\Support\LiveTestCase;
use Lightbox\Tests\Support\Process;
use Lightbox\Tests\Support\SocketHttpClient;
use Lightbox\Tests\Support\TestServer;

/**
 * The optional PSR-18 client (docs/api.md §23: "an optional PSR-18 client may be passed instead of
 * curl"), against the real server: a small one of the tests' own (tests/Support/SocketHttpClient,
 * a plain socket, so nothing of curl is involved) and Guzzle's, both from Debian's PSR packages
 * (bin/ci.sh installs php-psr-http-client, php-psr-http-message, php-psr-http-factory and
 * php-guzzlehttp-guzzle). The library itself names no PSR interface in a signature, so it loads
 * and runs without them (checked in a process of its own).
 */
final class Psr18Test extends LiveTestCase
{
    private static function loadPsr(): void
    {
        $files = ['Psr/Http/Client/autoload.php', 'Psr/Http/Message/factory-autoload.php', 'GuzzleHttp/autoload.php'];
        foreach ($files as $file) {
            if (!is_file('/usr/share/php/' . $file)) {
                self::fail("/usr/share/php/{$file} is missing: bin/ci.sh installs Debian's PSR packages and Guzzle");
            }
            require_once '/usr/share/php/' . $file;
        }
        require_once __DIR__ . '/Support/SocketNetworkException.php';
        require_once __DIR__ . '/Support/SocketHttpClient.php';
    }

    /** @return array{0: LightboxClient, 1: SocketHttpClient} */
    private static function viaSocket(array $options = []): array
    {
        self::loadPsr();
        $factory = new \GuzzleHttp\Psr7\HttpFactory();
        $http = new SocketHttpClient($factory, $factory);
        $lb = self::client($options + [
            'http_client' => $http,
            'request_factory' => $factory,
            'stream_factory' => $factory,
        ]);
        return [$lb, $http];
    }

    public function testASmallPsr18ClientDoesEverythingCurlDoes(): void
    {
        [$lb, $http] = self::viaSocket();
        $gallery = $lb->listings->create(['address' => '18 Socket Street', 'status' => 'archived']);
        self::assertSame('18 Socket Street', $lb->listings->retrieve($gallery->id)->address);
        self::assertStringStartsWith('POST /v1/listings ', $http->requests[0]);
        self::assertStringStartsWith('GET /v1/listings/' . $gallery->id . ' ', $http->requests[1]);

        // Pagination by cursor through it.
        for ($i = 0; $i < 4; $i++) {
            $lb->listings->create(['address' => "{$i} Socket Paging", 'status' => 'archived']);
        }
        $ids = [];
        foreach ($lb->listings->all(['status' => 'archived', 'limit' => 2])->autoPagingIterator() as $item) {
            $ids[] = $item->id;
        }
        self::assertSame($ids, array_values(array_unique($ids)));
        self::assertGreaterThanOrEqual(5, count($ids));
        self::assertContains($gallery->id, $ids);

        // A multipart upload from a path: the body reaches the client as a stream spooled to
        // php://temp with a 2 MiB memory cap (the rest on disk), not as one string in memory.
        $big = self::tempFile(self::png() . str_repeat("\0", 3 * 1024 * 1024));
        $http->bodies = [];
        try {
            $media = $lb->media->upload($gallery->id, [$big, ['data' => self::png(), 'filename' => 'b.png']]);
        } finally {
            unlink($big);
        }
        self::assertCount(2, $media->data);
        self::assertSame(strlen(self::png()) + 3 * 1024 * 1024, $media->data[0]->size);
        self::assertSame('image/png', $media->data[1]->content_type);
        self::assertSame(['POST php://temp/maxmemory:2097152'], $http->bodies);

        // A resumable upload through it, chunk by chunk, and a download into a sink.
        $path = self::tempFile(self::png() . random_bytes(2 * 1024 * 1024 + 100));
        $progress = [];
        try {
            $resumed = $lb->media->uploadResumable($gallery->id, $path, [
                'chunk_size' => 1024 * 1024,
                'on_progress' => function (int $sent) use (&$progress): void {
                    $progress[] = $sent;
                },
            ]);
            self::assertSame(hash_file('sha256', $path), $resumed->sha256);
            self::assertSame([1048576, 2097152, filesize($path)], $progress);
            $patches = array_values(array_filter($http->requests, fn ($l) => str_starts_with($l, 'PATCH ')));
            self::assertCount(3, $patches);
            self::assertStringEndsWith(' 1048576', $patches[0]);
            // Each chunk too is spooled, not read into a string.
            $spooled = array_filter($http->bodies, fn ($b) => $b === 'PATCH php://temp/maxmemory:2097152');
            self::assertCount(3, $spooled);
            $sink = fopen('php://temp', 'w+b');
            $lb->media->download($gallery->id, $resumed->id, ['sink' => $sink]);
            rewind($sink);
            self::assertSame(file_get_contents($path), stream_get_contents($sink));
            fclose($sink);
        } finally {
            unlink($path);
        }

        // Errors are the same typed exceptions, request id included.
        try {
            $lb->listings->retrieve('lst_nope');
            self::fail('no NotFoundException');
        } catch (NotFoundException $e) {
            self::assertSame(404, $e->getHttpStatus());
            self::assertSame('not_found', $e->getErrorCode());
            self::assertNotNull($e->getRequestId());
        }
    }

    public function testItsNetworkErrorsAreConnectionExceptionsAndAPostIsRetriedOnce(): void
    {
        $closed = 'http://127.0.0.1:' . TestServer::freePort();
        [$lb] = self::viaSocket(['base_url' => $closed, 'max_retries' => 1]);
        try {
            $lb->listings->all();
            self::fail('no ConnectionException');
        } catch (ConnectionException $e) {
            self::assertNull($e->getHttpStatus());
            self::assertInstanceOf(\Psr\Http\Client\NetworkExceptionInterface::class, $e->getPrevious());
        }

        // A POST whose answer is lost: retried with the same Idempotency-Key, one resource made.
        $proxy = Process::proxy(self::server()->port, 'drop-first-post');
        try {
            [$lb] = self::viaSocket(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $email = 'psr-' . bin2hex(random_bytes(3)) . '@example.com';
            $client = $lb->clients->create(['name' => 'Via PSR-18', 'email' => $email]);
            self::assertSame('true', $client->getLastResponse()?->header('idempotent-replayed'));
            self::assertSame(['POST /v1/clients dropped', 'POST /v1/clients passed'], $proxy->lines());
            $found = self::client()->clients->all(['search' => $email]);
            self::assertCount(1, $found->data);
        } finally {
            $proxy->stop();
        }
    }

    public function testGuzzleAsThePsr18Client(): void
    {
        self::loadPsr();
        $factory = new \GuzzleHttp\Psr7\HttpFactory();
        $lb = self::client([
            'http_client' => new \GuzzleHttp\Client(['http_errors' => false, 'allow_redirects' => false]),
            'request_factory' => $factory,
            'stream_factory' => $factory,
        ]);
        $gallery = $lb->listings->create(['address' => '18 Guzzle Street']);
        self::assertSame('18 Guzzle Street', $lb->listings->retrieve($gallery->id)->address);
        $path = self::tempFile(self::png());
        try {
            $media = $lb->media->upload($gallery->id, [$path, ['data' => self::png(), 'filename' => 'b.png']]);
            $resumed = $lb->media->uploadResumable($gallery->id, $path);
        } finally {
            unlink($path);
        }
        self::assertCount(2, $media->data);
        self::assertSame('image/png', $media->data[0]->content_type);
        self::assertSame(hash('sha256', self::png()), $resumed->sha256);
        $this->expectException(NotFoundException::class);
        $lb->listings->retrieve('lst_nope');
    }

    public function testWhatIsNotAPsr18ClientIsRefused(): void
    {
        self::loadPsr();
        $duck = new class {
            public function sendRequest(object $request): object
            {
                return $request;
            }
        };
        try {
            self::client(['http_client' => $duck]);
            self::fail('a lookalike was taken for a PSR-18 client');
        } catch (InvalidArgumentException $e) {
            self::assertStringContainsString('PSR-18', $e->getMessage());
        }
        $factory = new \GuzzleHttp\Psr7\HttpFactory();
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('request_factory and stream_factory');
        self::client(['http_client' => new SocketHttpClient($factory, $factory)]);
    }

    public function testTheLibraryNeedsNoPsrPackageOfItsOwn(): void
    {
        $script = 'require ' . var_export(dirname(__DIR__) . '/init.php', true) . ';'
            . '$lb = new \Lightbox\LightboxClient(["api_key" => getenv("K"), "base_url" => getenv("U")]);'
            . 'echo $lb->account->retrieve()->id, " ",'
            . ' interface_exists("Psr\\\\Http\\\\Client\\\\ClientInterface") ? "psr loaded" : "no psr", "\n";';
        $proc = proc_open(
            [PHP_BINARY, '-n', '-d', 'extension=curl', '-r', $script],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
            null,
            ['K' => self::server()->apiKey, 'U' => self::server()->baseUrl]
        );
        $out = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        self::assertSame(0, proc_close($proc), $out);
        self::assertMatchesRegularExpression('/^\S+ no psr$/', trim($out));
    }
}
