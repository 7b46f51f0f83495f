<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 401 `unauthorized`: the API key is missing, unknown, revoked or expired.
 */
class AuthenticationException extends ApiErrorException
{
}
