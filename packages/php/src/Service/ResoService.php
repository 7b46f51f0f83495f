<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->reso`: every operation is generated (see Generated\AbstractResoService).
 */
class ResoService extends Generated\AbstractResoService
{
}
