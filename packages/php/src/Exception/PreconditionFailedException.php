<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 412 `precondition_failed`: a tus request without a supported Tus-Resumable.
 */
class PreconditionFailedException extends ApiErrorException
{
}
