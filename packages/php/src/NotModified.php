<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\HttpClient\Response;

/**
 * What a conditional GET answers (`if_none_match` option) when the resource has not changed (304).
 */
final class NotModified
{
    public function __construct(public readonly ?string $etag, private readonly Response $response)
    {
    }

    public function getLastResponse(): Response
    {
        return $this->response;
    }
}
