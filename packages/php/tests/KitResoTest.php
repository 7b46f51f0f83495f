<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Exception\ConflictException;
use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\ValidationException;
use Lightbox\LightboxClient;
use Lightbox\LightboxObject;
use Lightbox\Tests\Support\LiveTestCase;

/**
 * docs/api.md §32 and §33 against the real server: the RESO Media feed walked page after page by
 * `@odata.nextLink`, and a listing kit built for real, its items downloaded in memory, by range
 * and to a file.
 */
final class KitResoTest extends LiveTestCase
{
    /** An active gallery with `$count` photos whose variants are ready; answers it and the photo ids. */
    private static function galleryWithPhotos(LightboxClient $lb, array $fields, int $count): array
    {
        $gallery = $lb->listings->create($fields + ['status' => 'active']);
        $files = [];
        for ($i = 1; $i <= $count; $i++) {
            $files[] = ['data' => self::png(), 'filename' => "photo-{$i}.png"];
        }
        $ids = array_map(static fn ($m) => $m->id, $lb->media->upload($gallery->id, $files)->data);
        // Variants made and analysis done: the analysis reads the room (the feed's ImageOf), which
        // moves a record's MediaModificationTimestamp, so the feed stands still only after it.
        self::waitFor('the photos to be ready', static function () use ($lb, $gallery): bool {
            foreach ($lb->media->all($gallery->id) as $media) {
                if ($media->variants->status !== 'ready' || ($media->analysis->status ?? null) === 'pending') {
                    return false;
                }
            }
            return true;
        }, 180);
        return [$gallery, $ids];
    }

    private static function waitFor(string $what, \Closure $ready, int $seconds): void
    {
        $deadline = microtime(true) + $seconds;
        while (!$ready()) {
            if (microtime(true) > $deadline) {
                self::fail("timed out waiting for {$what}");
            }
            usleep(250_000);
        }
    }

    /** @param iterable<LightboxObject> $records */
    private static function keys(iterable $records): array
    {
        $keys = [];
        foreach ($records as $record) {
            $keys[] = $record->MediaKey;
        }
        return $keys;
    }

    public function testTheFeedIsWalkedPageAfterPageByTheNextLink(): void
    {
        $lb = self::client();
        $number = 'PHP-' . bin2hex(random_bytes(3));
        [$gallery, $photos] = self::galleryWithPhotos($lb, ['address' => '33 Feed Street', 'mls_number' => $number], 3);
        $mine = ['$filter' => "ResourceRecordKey eq '{$number}'"];

        $pages = iterator_to_array($lb->reso->mediaPages($mine + ['$top' => 1]), false);
        self::assertSame([1, 1, 1], array_map(static fn ($p) => count($p->value), $pages));
        self::assertIsString($pages[0]['@odata.nextLink']);
        self::assertNull($pages[2]['@odata.nextLink']);

        $records = iterator_to_array($lb->reso->iterateMedia($mine + ['$top' => 2]), false);
        $keys = self::keys($records);
        self::assertEqualsCanonicalizing($photos, $keys);
        self::assertSame(self::keys(array_map(static fn ($p) => $p->value[0], $pages)), $keys);
        $stamps = array_map(static fn ($r) => $r->MediaModificationTimestamp, $records);
        $sorted = $stamps;
        sort($sorted);
        self::assertSame($sorted, $stamps, 'oldest change first, the feed\'s one order');
        foreach ($records as $record) {
            self::assertSame(
                ['Property', $number, $gallery->id, 'Photo'],
                [$record->ResourceName, $record->ResourceRecordKey, $record->ResourceRecordID, $record->MediaCategory]
            );
        }

        // The filter rides along on every page.
        $later = $lb->reso->iterateMedia([
            '$filter' => "{$mine['$filter']} and MediaModificationTimestamp gt {$stamps[0]}",
            '$top' => 1,
        ]);
        self::assertSame(array_slice($keys, 1), self::keys($later));
        self::assertSame([], self::keys($lb->reso->iterateMedia(['$filter' => "ResourceRecordKey eq 'none-such'"])));
        try {
            iterator_to_array($lb->reso->iterateMedia(['$filter' => "City eq 'Brighton'"]));
            self::fail('a filter the feed does not take was taken');
        } catch (ValidationException $e) {
            self::assertSame(400, $e->getHttpStatus());
        }

        // A photo changed during the walk comes again later in it, never skipped.
        $walk = $lb->reso->iterateMedia($mine + ['$top' => 1]);
        $first = $walk->current();
        $lb->media->update($gallery->id, $first->MediaKey, ['caption' => 'The front, at dusk']);
        $walk->next();
        $rest = [];
        for (; $walk->valid(); $walk->next()) {
            $rest[] = $walk->current();
        }
        self::assertSame([...array_slice($keys, 1), $first->MediaKey], self::keys($rest));
        self::assertSame('The front, at dusk', end($rest)->ShortDescription);
    }

    public function testAKitBeforeItsBuild(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '31 Unbuilt Lane', 'status' => 'active']);
        $kit = $lb->listings->getKit($gallery->id);
        self::assertSame(['none', null, null], [$kit->status, $kit->built_at, $kit->mls_zip]);
        try {
            $lb->listings->downloadKitItem($gallery->id, 'flyer');
            self::fail('an item of a kit never built was served');
        } catch (NotFoundException $e) {
            self::assertSame(404, $e->getHttpStatus());
        }
        $this->expectException(ConflictException::class);
        $lb->listings->buildKit($gallery->id); // no ready photo yet
    }

    public function testAKitIsBuiltAndItsItemsDownloaded(): void
    {
        $lb = self::client();
        [$gallery] = self::galleryWithPhotos($lb, ['address' => '32 Kit Lane', 'beds' => 3], 1);
        $building = $lb->listings->buildKit($gallery->id);
        self::assertSame([$gallery->id, 'building'], [$building->listing_id, $building->status]);
        // Built: `ready`, or `stale` if the photo's analysis changed the gallery meanwhile.
        self::waitFor('the kit', static fn (): bool => $lb->listings->getKit($gallery->id)->built_at !== null, 240);
        $kit = $lb->listings->getKit($gallery->id);
        self::assertContains($kit->status, ['ready', 'stale']);

        $pack = $lb->listings->downloadKitItem($gallery->id, 'mls_zip');
        self::assertSame([200, 'application/zip'], [$pack->status, $pack->header('content-type')]);
        self::assertSame('PK', substr($pack->body, 0, 2));
        self::assertSame($kit->mls_zip->size, strlen($pack->body));
        $head = $lb->listings->downloadKitItem($gallery->id, 'mls_zip', ['range' => 'bytes=0-1']);
        self::assertSame([206, 'PK'], [$head->status, $head->body]);

        $path = self::tempFile('', '.pdf');
        try {
            $flyer = $lb->listings->downloadKitItem($gallery->id, 'flyer', ['sink' => $path]);
            self::assertSame(200, $flyer->status);
            self::assertSame($kit->flyer->size, filesize($path));
            self::assertSame('%PDF-', (string) file_get_contents($path, false, null, 0, 5));
        } finally {
            unlink($path);
        }
    }
}
