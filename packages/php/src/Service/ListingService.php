<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->listings`: every operation is generated (see Generated\AbstractListingService).
 */
class ListingService extends Generated\AbstractListingService
{
}
