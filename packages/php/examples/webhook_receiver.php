<?php

/**
 * The README's webhook receiver, for any PHP web server (`php -S`, Apache, nginx with FPM):
 * verify the signature on the raw body, deduplicate by event id, answer 204.
 *
 *   LIGHTBOX_WEBHOOK_SECRET=whsec_... php -S 127.0.0.1:8000 examples/webhook_receiver.php
 *
 * Each new event is appended to LIGHTBOX_WEBHOOK_LOG (default: the system's temporary directory's
 * lightbox-events.log) as `<type> <object id>`; a site would update its pages there instead.
 */

declare(strict_types=1);

use Lightbox\Exception\WebhookVerificationException;
use Lightbox\Webhook;

if (!class_exists(Webhook::class)) {
    require __DIR__ . '/../init.php';
}

$payload = (string) file_get_contents('php://input'); // the raw body, exactly as received
try {
    $event = Webhook::verify($payload, getallheaders(), (string) getenv('LIGHTBOX_WEBHOOK_SECRET'));
} catch (WebhookVerificationException $e) {
    http_response_code(400);
    echo $e->getMessage();
    return;
}

$log = getenv('LIGHTBOX_WEBHOOK_LOG') ?: sys_get_temp_dir() . '/lightbox-events.log';
$seen = is_file($log) ? (string) file_get_contents($log) : '';
// Delivery is at least once: a retried delivery carries the same event id.
if (!str_contains($seen, "{$event->id} ")) {
    file_put_contents($log, "{$event->id} {$event->type} {$event->data->object->id}\n", FILE_APPEND | LOCK_EX);
}
http_response_code(204);
