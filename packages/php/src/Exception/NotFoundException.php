<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 404 `not_found`: no such resource in this account (or no such route).
 */
class NotFoundException extends ApiErrorException
{
}
