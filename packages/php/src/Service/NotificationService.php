<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->notifications`: every operation is generated (see Generated\AbstractNotificationService).
 */
class NotificationService extends Generated\AbstractNotificationService
{
}
