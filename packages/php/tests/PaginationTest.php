<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Collection;
use Lightbox\Tests\Support\LiveTestCase;

final class PaginationTest extends LiveTestCase
{
    public function testAutoPagingWalksEveryItemOnce(): void
    {
        $lb = self::client();
        // Items of their own: a fresh client's galleries would not page, so a fresh server account would
        // be needed to filter; instead, count the whole list before and after making 250 more.
        $made = [];
        for ($i = 0; $i < 250; $i++) {
            $made[] = $lb->listings->create(['address' => "{$i} Paging Avenue", 'status' => 'archived'])->id;
        }
        $requests = 0;
        $page = $lb->listings->all(['status' => 'archived', 'limit' => 30]);
        self::assertInstanceOf(Collection::class, $page);
        self::assertCount(30, $page);
        $total = $page->pagination->total;
        self::assertGreaterThanOrEqual(250, $total);
        $seen = [];
        foreach ($page->autoPagingIterator() as $gallery) {
            $seen[] = $gallery->id;
            self::assertSame('archived', $gallery->status);
        }
        self::assertCount($total, $seen);
        self::assertSame($seen, array_values(array_unique($seen)));
        foreach ($made as $id) {
            self::assertContains($id, $seen);
        }
        // Newest first: the last made comes first.
        self::assertSame(end($made), $seen[0]);
    }

    public function testAPageOnlyIteratesItself(): void
    {
        $lb = self::client();
        $lb->listings->create(['address' => 'One more page row']);
        $page = $lb->listings->all(['limit' => 1]);
        $items = iterator_to_array($page, false);
        self::assertCount(1, $items);
        self::assertNotNull($page->nextPage());
    }
}
