<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 500 `internal_error` (the message never reveals internals), and other 5xx answers.
 */
class InternalServerException extends ApiErrorException
{
}
