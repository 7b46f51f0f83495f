<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

/**
 * A request body read from an open stream: `length` bytes from `offset`, read as they are sent
 * (a tus chunk). Seekable streams can be sent again, so such a request can be retried.
 */
final class StreamBody
{
    /**
     * @param resource $stream
     */
    public function __construct(
        public readonly mixed $stream,
        public readonly int $offset,
        public readonly int $length
    ) {
    }
}
