<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->clients`: every operation is generated (see Generated\AbstractClientService).
 */
class ClientService extends Generated\AbstractClientService
{
}
