<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * No answer: the connection was refused, reset or cut (getHttpStatus() is null).
 */
class ConnectionException extends ApiErrorException
{
}
