<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * No answer within the request's timeout (getHttpStatus() is null).
 */
class TimeoutException extends ApiErrorException
{
}
