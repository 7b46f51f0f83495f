<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * A call the library refuses before sending anything (a missing API key, a file that is not there).
 */
class InvalidArgumentException extends \InvalidArgumentException implements ExceptionInterface
{
}
