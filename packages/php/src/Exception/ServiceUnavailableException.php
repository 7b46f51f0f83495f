<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 503 `unavailable`: shutting down, or the database is unreachable.
 */
class ServiceUnavailableException extends ApiErrorException
{
}
