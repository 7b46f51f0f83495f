<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\LightboxObject;
use Lightbox\Webhook;

/**
 * `$lb->webhooks`: the same check as Webhook::verify, for code that holds a client.
 */
class WebhookService extends AbstractService
{
    /**
     * @param array<string, string|list<string>> $headers matched case-insensitively
     * @throws \Lightbox\Exception\WebhookVerificationException
     */
    public function verify(string $payload, array $headers, string $secret): LightboxObject
    {
        return Webhook::verify($payload, $headers, $secret);
    }
}
