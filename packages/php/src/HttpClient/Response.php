<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

/**
 * One HTTP answer: its status, headers (names lower-cased) and body (empty when it went to a sink).
 */
final class Response
{
    /**
     * @param array<string, string> $headers
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body
    ) {
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }

    public function requestId(): ?string
    {
        return $this->header('x-request-id');
    }
}
