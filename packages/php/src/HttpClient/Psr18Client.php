<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\InvalidArgumentException;

/**
 * Sends through a PSR-18 client the caller already has (its plugin's HTTP library), with PSR-17
 * factories to build requests and bodies. Nothing here names a PSR interface in a signature, so
 * the library loads without the psr packages; the objects are checked when given.
 */
final class Psr18Client implements ClientInterface
{
    public function __construct(
        private readonly object $client,
        private readonly object $requestFactory,
        private readonly object $streamFactory
    ) {
        $checks = [
            'Psr\Http\Client\ClientInterface' => $client,
            'Psr\Http\Message\RequestFactoryInterface' => $requestFactory,
            'Psr\Http\Message\StreamFactoryInterface' => $streamFactory,
        ];
        foreach ($checks as $interface => $object) {
            if (!interface_exists($interface) || !$object instanceof $interface) {
                throw new InvalidArgumentException(get_class($object) . " is not a {$interface}");
            }
        }
    }

    /** True when `$client` is a PSR-18 client (false too when the psr/http-client interface is not loaded). */
    public static function isPsr18(mixed $client): bool
    {
        return interface_exists('Psr\Http\Client\ClientInterface')
            && $client instanceof \Psr\Http\Client\ClientInterface;
    }

    public function send(string $method, string $url, array $headers, mixed $body, array $options): Response
    {
        /** @var \Psr\Http\Message\RequestFactoryInterface $factory */
        $factory = $this->requestFactory;
        /** @var \Psr\Http\Message\StreamFactoryInterface $streams */
        $streams = $this->streamFactory;
        $request = $factory->createRequest($method, $url);
        foreach ($headers as $name => $value) {
            $request = $request->withHeader($name, $value);
        }
        if (is_string($body)) {
            $request = $request->withBody($streams->createStream($body));
        } elseif ($body instanceof MultipartBody) {
            [$stream, $type] = $body->toStream();
            $size = fstat($stream)['size'] ?? null;
            $request = $request->withHeader('Content-Type', $type)
                ->withBody($streams->createStreamFromResource($stream));
            if ($size !== null) {
                $request = $request->withHeader('Content-Length', (string) $size);
            }
        } elseif ($body instanceof StreamBody) {
            // The chunk goes through php://temp (at most 2 MiB in memory, the rest on disk): a PSR-7
            // body is a stream of its own, and a chunk may be large.
            if (fseek($body->stream, $body->offset) !== 0) {
                throw new \RuntimeException('cannot seek the stream to ' . $body->offset);
            }
            $chunk = fopen('php://temp/maxmemory:2097152', 'w+b');
            if ($chunk === false) {
                throw new \RuntimeException('cannot open php://temp');
            }
            $copied = $body->length > 0 ? (int) stream_copy_to_stream($body->stream, $chunk, $body->length) : 0;
            rewind($chunk);
            $request = $request->withHeader('Content-Length', (string) $copied)
                ->withBody($streams->createStreamFromResource($chunk));
        }
        /** @var \Psr\Http\Client\ClientInterface $client */
        $client = $this->client;
        try {
            $response = $client->sendRequest($request);
        } catch (\Psr\Http\Client\ClientExceptionInterface $e) {
            throw ConnectionException::factory(
                "could not reach {$url}: {$e->getMessage()}",
                null,
                'connection_error',
                [],
                null,
                [],
                null,
                $e
            );
        }
        $out = [];
        foreach ($response->getHeaders() as $name => $values) {
            $out[strtolower((string) $name)] = implode(', ', $values);
        }
        $status = $response->getStatusCode();
        $stream = $response->getBody();
        $sink = $options['sink'] ?? null;
        if ($sink !== null && $status >= 200 && $status < 300) {
            while (!$stream->eof()) {
                fwrite($sink, $stream->read(1 << 20));
            }
            return new Response($status, $out, '');
        }
        return new Response($status, $out, (string) $stream);
    }
}
