<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 408 `request_timeout`: the server gave up waiting for the request's body.
 */
class RequestTimeoutException extends ApiErrorException
{
}
