<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 422 `fetch_failed`: media from a URL could not be fetched (the message says why).
 */
class FetchFailedException extends ApiErrorException
{
}
