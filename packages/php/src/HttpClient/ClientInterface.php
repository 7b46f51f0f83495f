<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

/**
 * What sends one HTTP request (one attempt: retries are the caller's). The default is CurlClient;
 * Psr18Client adapts any PSR-18 client.
 */
interface ClientInterface
{
    /**
     * @param array<string, string> $headers
     * @param null|string|MultipartBody|StreamBody $body
     * @param array{timeout?: float, sink?: resource|null} $options `timeout` in seconds for the whole
     *     attempt (0: none, but an attempt with no byte moving for 60 s still fails); `sink`
     *     receives a successful answer's body instead of memory
     * @throws \Lightbox\Exception\ConnectionException when no answer came
     * @throws \Lightbox\Exception\TimeoutException when no answer came in time
     */
    public function send(string $method, string $url, array $headers, mixed $body, array $options): Response;
}
