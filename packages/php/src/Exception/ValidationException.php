<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 400 `validation_error` or `invalid_json`: getDetails() names each refused field.
 */
class ValidationException extends ApiErrorException
{
}
