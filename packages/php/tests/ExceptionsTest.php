<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Exception\ApiErrorException;
use Lightbox\Exception\AuthenticationException;
use Lightbox\Exception\ConflictException;
use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\ExceptionInterface;
use Lightbox\Exception\FetchFailedException;
use Lightbox\Exception\InternalServerException;
use Lightbox\Exception\MethodNotAllowedException;
use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\PayloadTooLargeException;
use Lightbox\Exception\PermissionException;
use Lightbox\Exception\PreconditionFailedException;
use Lightbox\Exception\RangeNotSatisfiableException;
use Lightbox\Exception\RateLimitException;
use Lightbox\Exception\RequestTimeoutException;
use Lightbox\Exception\ServiceUnavailableException;
use Lightbox\Exception\TimeoutException;
use Lightbox\Exception\UnsupportedMediaTypeException;
use Lightbox\Exception\ValidationException;
use Lightbox\Exception\WebhookVerificationException;
use Lightbox\HttpClient\ClientInterface;
use Lightbox\HttpClient\Response;
use Lightbox\LightboxClient;
use Lightbox\Tests\Support\LiveTestCase;
use Lightbox\Tests\Support\TestServer;

/**
 * Each exception class, from a real server's answer wherever a real server can give it.
 */
final class ExceptionsTest extends LiveTestCase
{
    /** @return ApiErrorException the exception `$fn` threw, checked to be exactly `$class` */
    private static function caught(string $class, callable $fn): ApiErrorException
    {
        try {
            $fn();
        } catch (ApiErrorException $e) {
            self::assertSame($class, get_class($e), $e->getMessage());
            self::assertInstanceOf(ExceptionInterface::class, $e);
            return $e;
        }
        self::fail("no {$class}");
    }

    private static function assertFromServer(ApiErrorException $e, int $status, string $code): void
    {
        self::assertSame($status, $e->getHttpStatus());
        self::assertSame($code, $e->getErrorCode());
        self::assertMatchesRegularExpression('/^\S+$/', (string) $e->getRequestId());
        self::assertSame($e->getHttpHeaders()['x-request-id'] ?? null, $e->getRequestId());
        self::assertNotSame('', $e->getMessage());
    }

    public function testValidationExceptionNamesEachField(): void
    {
        $e = self::caught(ValidationException::class, fn () => self::client()->listings->create(['beds' => -1]));
        self::assertFromServer($e, 400, 'validation_error');
        $fields = array_column($e->getDetails(), 'field');
        self::assertContains('address', $fields);
        self::assertContains('beds', $fields);
        $e = self::caught(ValidationException::class, fn () => self::client()->listings->all(['status' => 'sold']));
        self::assertSame('status', $e->getDetails()[0]['field']);
    }

    public function testAuthenticationAndPermission(): void
    {
        $bad = new LightboxClient(['api_key' => 'lbx_' . str_repeat('x', 40), 'base_url' => self::server()->baseUrl]);
        self::assertFromServer(
            self::caught(AuthenticationException::class, fn () => $bad->listings->all()),
            401,
            'unauthorized'
        );
        $readOnly = self::client(['api_key' => self::server()->readOnlyKey]);
        self::assertInstanceOf(\Lightbox\Collection::class, $readOnly->listings->all());
        self::assertFromServer(
            self::caught(PermissionException::class, fn () => $readOnly->listings->create(['address' => 'x'])),
            403,
            'forbidden'
        );
    }

    public function testNotFoundConflictAndMethodNotAllowed(): void
    {
        $lb = self::client();
        self::assertFromServer(
            self::caught(NotFoundException::class, fn () => $lb->listings->retrieve('lst_missing')),
            404,
            'not_found'
        );
        $email = 'dup-' . bin2hex(random_bytes(3)) . '@example.com';
        $lb->clients->create(['name' => 'One', 'email' => $email]);
        self::assertFromServer(
            self::caught(ConflictException::class, fn () => $lb->clients->create(['name' => 'Two', 'email' => $email])),
            409,
            'conflict'
        );
        self::assertFromServer(
            self::caught(MethodNotAllowedException::class, fn () => $lb->request('PUT', '/v1/listings')),
            405,
            'method_not_allowed'
        );
    }

    public function testUploadErrors(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '415 Text Lane']);
        $text = self::tempFile("just some words\n", '.txt');
        try {
            self::assertFromServer(
                self::caught(UnsupportedMediaTypeException::class, fn () => $lb->media->upload($gallery->id, [$text])),
                415,
                'unsupported_media_type'
            );
        } finally {
            unlink($text);
        }
        self::assertFromServer(
            self::caught(PayloadTooLargeException::class, fn () => $lb->media->createUpload($gallery->id, 8 << 30)),
            413,
            'payload_too_large'
        );
        $requestor = $lb->getRequestor();
        self::assertFromServer(
            self::caught(PreconditionFailedException::class, fn () => $requestor->send(
                'POST',
                '/v1/listings/' . $gallery->id . '/uploads',
                [],
                null,
                [],
                [],
                ['upload-length' => '10']
            )),
            412,
            'precondition_failed'
        );
        $media = $lb->media->upload($gallery->id, [['data' => self::png(), 'filename' => 'a.png']])->data[0];
        self::assertFromServer(
            self::caught(
                RangeNotSatisfiableException::class,
                fn () => $lb->media->download($gallery->id, $media->id, ['range' => 'bytes=100000-'])
            ),
            416,
            'range_not_satisfiable'
        );
    }

    public function testRequestTimeoutAndRateLimitOnASecondServer(): void
    {
        $server = TestServer::with(['RATE_LIMIT_PER_MINUTE' => '3', 'HTTP_REQUEST_TIMEOUT_SECONDS' => '1']);
        try {
            // A body that stalls: the server answers 408 after HTTP_REQUEST_TIMEOUT_SECONDS. curl
            // cannot send half a body on purpose, so the request is written by hand and its answer
            // read as the client reads any answer.
            $socket = stream_socket_client('tcp://127.0.0.1:' . $server->port);
            fwrite($socket, "POST /v1/listings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                . "Authorization: Bearer {$server->apiKey}\r\n"
                . "Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"addr");
            $raw = (string) stream_get_contents($socket);
            fclose($socket);
            [$head, $body] = explode("\r\n\r\n", $raw, 2);
            $headers = [];
            foreach (array_slice(explode("\r\n", $head), 1) as $line) {
                [$name, $value] = explode(':', $line, 2);
                $headers[strtolower($name)] = trim($value);
            }
            $status = (int) explode(' ', $head)[1];
            if (($headers['transfer-encoding'] ?? '') === 'chunked') {
                $body = substr($body, strpos($body, "\r\n") + 2);
                $body = substr($body, 0, strrpos(rtrim($body), "\r\n0") ?: null);
            }
            $e = ApiErrorException::fromResponse($status, $headers, trim($body));
            self::assertInstanceOf(RequestTimeoutException::class, $e);
            self::assertFromServer($e, 408, 'request_timeout');

            $lb = new LightboxClient([
                'api_key' => $server->apiKey,
                'base_url' => $server->baseUrl,
                'max_retries' => 0,
            ]);
            $e = null;
            for ($i = 0; $i < 10 && $e === null; $i++) {
                try {
                    $lb->listings->all();
                } catch (RateLimitException $limited) {
                    $e = $limited;
                }
            }
            self::assertNotNull($e, 'no 429 in 10 requests at 3 a minute');
            self::assertFromServer($e, 429, 'rate_limited');
            self::assertInstanceOf(RateLimitException::class, $e);
            self::assertGreaterThan(0, $e->getRetryAfter());
        } finally {
            $server->stop();
        }
    }

    public function testConnectionAndTimeout(): void
    {
        $closed = TestServer::freePort();
        $lb = self::client(['base_url' => 'http://127.0.0.1:' . $closed, 'max_retries' => 1]);
        $e = self::caught(ConnectionException::class, fn () => $lb->listings->all());
        self::assertNull($e->getHttpStatus());
        self::assertSame('connection_error', $e->getErrorCode());

        // A socket that is listened on but never answered: the request goes out, no answer comes.
        $silent = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($silent);
        $name = (string) stream_socket_get_name($silent, false);
        $lb = self::client(['base_url' => 'http://' . $name, 'timeout' => 0.5, 'max_retries' => 0]);
        $e = self::caught(TimeoutException::class, fn () => $lb->listings->all());
        self::assertSame('timeout', $e->getErrorCode());
        fclose($silent);
    }

    /**
     * A real server does not answer 500 or 503 on demand: a transport answering as the API does
     * (same body shape) checks the mapping and that 5xx answers are retried, then thrown.
     */
    public function testServerErrorsAreRetriedThenThrown(): void
    {
        $cases = [
            500 => ['internal_error', InternalServerException::class],
            503 => ['unavailable', ServiceUnavailableException::class],
        ];
        foreach ($cases as $status => [$code, $class]) {
            $transport = new class ($status, $code) implements ClientInterface {
                public int $calls = 0;

                public function __construct(private int $status, private string $code)
                {
                }

                public function send(string $method, string $url, array $headers, mixed $body, array $options): Response
                {
                    $this->calls++;
                    $id = 'req_' . $this->calls;
                    return new Response($this->status, ['x-request-id' => $id], json_encode(['error' => [
                        'code' => $this->code,
                        'message' => 'failed',
                        'request_id' => $id,
                    ]]));
                }
            };
            $lb = self::client(['http_client' => $transport, 'max_retries' => 2]);
            $e = self::caught($class, fn () => $lb->listings->all());
            self::assertSame(3, $transport->calls);
            self::assertSame('req_3', $e->getRequestId());
            self::assertSame($status, $e->getHttpStatus());
        }
    }

    /** A code this library does not know takes the class of its status, else ApiErrorException itself. */
    public function testAnUnknownCodeFallsBackByStatus(): void
    {
        $cases = [
            [409, 'new_conflict', ConflictException::class],
            [502, 'bad_gateway', InternalServerException::class],
            [418, 'teapot', ApiErrorException::class],
        ];
        foreach ($cases as [$status, $code, $class]) {
            $body = json_encode(['error' => [
                'code' => $code,
                'message' => 'm',
                'details' => [['field' => 'f', 'message' => 'x']],
                'request_id' => 'req_9',
            ]]);
            $e = ApiErrorException::fromResponse($status, ['x-request-id' => 'req_9'], (string) $body);
            self::assertSame($class, get_class($e));
            self::assertSame([$status, $code, 'req_9', 'f'], [
                $e->getHttpStatus(),
                $e->getErrorCode(),
                $e->getRequestId(),
                $e->getDetails()[0]['field'],
            ]);
        }
    }

    public function testFetchFailedExceptionForMediaFromAUrl(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '422 Fetch Road']);
        $closed = 'http://127.0.0.1:' . TestServer::freePort() . '/photo.jpg';
        self::assertFromServer(
            self::caught(FetchFailedException::class, fn () => $lb->media->createFromUrl($gallery->id, $closed)),
            422,
            'fetch_failed'
        );
    }

    public function testWebhookVerificationException(): void
    {
        $e = self::caught(
            WebhookVerificationException::class,
            fn () => \Lightbox\Webhook::verify('{}', ['webhook-id' => 'evt_1'], 'whsec_' . base64_encode('k'))
        );
        self::assertSame('webhook_verification_failed', $e->getErrorCode());
        self::assertNull($e->getHttpStatus());
    }
}
