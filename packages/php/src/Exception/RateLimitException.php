<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 429 `rate_limited`, after the retries: getRetryAfter() is the server's wait in seconds.
 */
class RateLimitException extends ApiErrorException
{
    public function getRetryAfter(): ?float
    {
        return \Lightbox\Util\Util::retryAfterSeconds($this->getHttpHeaders());
    }
}
