<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->events`: every operation is generated (see Generated\AbstractEventService).
 */
class EventService extends Generated\AbstractEventService
{
}
