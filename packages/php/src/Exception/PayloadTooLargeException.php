<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 413 `payload_too_large`: a JSON body, a file or an upload over its limit.
 */
class PayloadTooLargeException extends ApiErrorException
{
}
