<?php

/**
 * The README's quick start, run by the tests against a real server, both ways of loading:
 *   - without Composer:  LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... php examples/quickstart.php
 *   - with Composer:     a script that requires vendor/autoload.php, then this file.
 */

declare(strict_types=1);

use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\ValidationException;
use Lightbox\LightboxClient;

if (!class_exists(LightboxClient::class)) {
    require __DIR__ . '/../init.php';
}

// The key and URL come from LIGHTBOX_API_KEY and LIGHTBOX_BASE_URL.
$lb = new LightboxClient();

$gallery = $lb->listings->create(['address' => '42 Quickstart Lane', 'beds' => 3]);
echo "gallery {$gallery->id} at {$gallery->address}\n";

$photo = sys_get_temp_dir() . '/quickstart-' . bin2hex(random_bytes(4)) . '.png';
file_put_contents($photo, base64_decode(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
));
$uploaded = $lb->media->upload($gallery->id, [$photo]);
unlink($photo);
echo "uploaded {$uploaded->data[0]->kind} {$uploaded->data[0]->content_type}\n";
$lb->listings->update($gallery->id, ['status' => 'active']);

$client = $lb->clients->create(['name' => 'Ada Byron', 'email' => 'ada-' . bin2hex(random_bytes(4)) . '@example.com']);
$lb->clients->assign($client->id, $gallery->id); // emails Ada her gallery link
echo "client link {$lb->listings->retrieve($gallery->id)->client_link->url}\n";

$count = 0;
foreach ($lb->listings->all(['status' => 'active', 'limit' => 100])->autoPagingIterator() as $item) {
    $count++;
}
echo "active galleries: {$count}\n";

try {
    $lb->listings->retrieve('lst_does_not_exist');
} catch (NotFoundException $e) {
    echo "not found: {$e->getErrorCode()} {$e->getHttpStatus()} request {$e->getRequestId()}\n";
}
try {
    $lb->listings->create(['beds' => -1]);
} catch (ValidationException $e) {
    echo 'refused: ' . implode(', ', array_column($e->getDetails(), 'field')) . "\n";
}
echo 'loaded from ' . (new ReflectionClass(LightboxClient::class))->getFileName() . "\n";
