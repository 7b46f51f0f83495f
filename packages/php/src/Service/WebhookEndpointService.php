<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->webhookEndpoints`: every operation is generated (see Generated\AbstractWebhookEndpointService).
 */
class WebhookEndpointService extends Generated\AbstractWebhookEndpointService
{
}
