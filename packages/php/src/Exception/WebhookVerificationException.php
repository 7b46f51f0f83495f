<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * Webhook::verify refused a payload: a missing header, a wrong signature, secret or timestamp.
 */
class WebhookVerificationException extends ApiErrorException
{
}
