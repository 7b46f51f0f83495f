<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * Every exception this library throws implements this interface: catch it to catch them all.
 */
interface ExceptionInterface extends \Throwable
{
}
