<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * 415 `unsupported_media_type`: a file that is not a photo, video or document, or a wrong content type.
 */
class UnsupportedMediaTypeException extends ApiErrorException
{
}
