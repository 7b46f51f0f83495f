<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 403 `forbidden`: the key's scope does not allow this (a read-only key on a write).
 */
class PermissionException extends ApiErrorException
{
}
