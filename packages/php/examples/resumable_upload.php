<?php

/**
 * The README's resumable upload: a large file in chunks, picked up again after a crash or a
 * restart. The upload's URL is kept in `<file>.upload-url` as soon as it exists; run the script
 * again after an interruption and it goes on from the bytes the server already holds.
 *
 *   LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... php examples/resumable_upload.php lst_... tour.mp4 [CHUNK_MIB]
 */

declare(strict_types=1);

use Lightbox\Exception\NotFoundException;
use Lightbox\LightboxClient;
use Lightbox\LightboxObject;

if (!class_exists(LightboxClient::class)) {
    require __DIR__ . '/../init.php';
}

function upload(LightboxClient $lb, string $listingId, string $path, int $chunkSize): LightboxObject
{
    $state = $path . '.upload-url';
    $resume = is_file($state) ? trim((string) file_get_contents($state)) : null;
    try {
        $media = $lb->media->uploadResumable($listingId, $path, [
            'chunk_size' => $chunkSize, // at most this much is sent again after a cut
            'on_progress' => function (int $sent, int $total) use ($path): void {
                printf("%s: %d%% (%d/%d bytes)\n", basename($path), intdiv(100 * $sent, max($total, 1)), $sent, $total);
            },
            'upload_url' => $resume,
            'on_upload_url' => fn (string $url) => file_put_contents($state, $url),
        ]);
    } catch (NotFoundException $e) {
        if ($resume === null) {
            throw $e;
        }
        unlink($state); // the upload expired or was abandoned: start again
        echo "the earlier upload is gone: starting again\n";
        return upload($lb, $listingId, $path, $chunkSize);
    }
    if (is_file($state)) {
        unlink($state);
    }
    return $media;
}

$lb = new LightboxClient();
$media = upload($lb, $argv[1], $argv[2], (int) ($argv[3] ?? 8) * 1024 * 1024);
echo "{$media->id}: {$media->kind}, {$media->size} bytes, sha256 {$media->sha256}\n";
