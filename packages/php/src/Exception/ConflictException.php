<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 409 `conflict`: a duplicate email, an Idempotency-Key reused or still running, a tus offset.
 */
class ConflictException extends ApiErrorException
{
}
