<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 416 `range_not_satisfiable`: a Range outside the bytes.
 */
class RangeNotSatisfiableException extends ApiErrorException
{
}
