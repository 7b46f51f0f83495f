<?php

/**
 * The README's incremental sync (API section 19): what changed and what was deleted since a time.
 *   LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... php examples/sync.php 2026-11-20T08:00:00.000Z
 * Prints `changed <id>` and `deleted <id>` lines, then `next <time>` to pass next time.
 */

declare(strict_types=1);

use Lightbox\LightboxClient;

if (!class_exists(LightboxClient::class)) {
    require __DIR__ . '/../init.php';
}

$lb = new LightboxClient();
$since = $argv[1] ?? '1970-01-01T00:00:00.000Z';
$started = gmdate('Y-m-d\TH:i:s.v\Z'); // taken before the walk: nothing falls between two syncs

$changed = $lb->listings->all(['sort' => 'updated_at', 'updated_since' => $since, 'limit' => 100]);
foreach ($changed->autoPagingIterator() as $gallery) {
    echo "changed {$gallery->id}\n";
}
$deleted = $lb->events->all(['type' => 'listing.deleted', 'created_since' => $since, 'limit' => 100]);
foreach ($deleted->autoPagingIterator() as $event) {
    echo "deleted {$event->data->object->id}\n";
}
echo "next {$started}\n";
