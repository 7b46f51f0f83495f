<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 405 `method_not_allowed`: a known path, a wrong method.
 */
class MethodNotAllowedException extends ApiErrorException
{
}
