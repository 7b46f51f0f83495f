<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Collection;
use PHPUnit\Framework\TestCase;

/**
 * The cursor walk of API section 19, on pages made here: the server under test may not send
 * `next_cursor` yet (then the live PaginationTest walks by page numbers).
 */
final class CollectionTest extends TestCase
{
    public function testFollowsNextCursorWithoutPage(): void
    {
        $asked = [];
        $pages = [
            'c1' => [
                'data' => [['id' => 'b']],
                'pagination' => ['page' => null, 'limit' => 1, 'total' => 3, 'next_cursor' => 'c2'],
            ],
            'c2' => [
                'data' => [['id' => 'c']],
                'pagination' => ['page' => null, 'limit' => 1, 'total' => 3, 'next_cursor' => null],
            ],
        ];
        $fetch = function (array $params) use (&$asked, &$fetch, $pages): Collection {
            $asked[] = $params;
            return Collection::page($pages[$params['cursor']], null, $params, $fetch);
        };
        $first = Collection::page(
            [
                'data' => [['id' => 'a']],
                'pagination' => ['page' => 1, 'limit' => 1, 'total' => 3, 'next_cursor' => 'c1'],
            ],
            null,
            ['page' => 1, 'limit' => 1, 'sort' => 'updated_at'],
            $fetch
        );
        $ids = array_map(fn ($o) => $o->id, iterator_to_array($first->autoPagingIterator(), false));
        self::assertSame(['a', 'b', 'c'], $ids);
        self::assertSame([
            ['limit' => 1, 'sort' => 'updated_at', 'cursor' => 'c1'],
            ['limit' => 1, 'sort' => 'updated_at', 'cursor' => 'c2'],
        ], $asked);
    }

    public function testANullCursorEndsTheWalkEvenWhenTotalSaysMore(): void
    {
        $page = Collection::page(
            [
                'data' => [['id' => 'a']],
                'pagination' => ['page' => 1, 'limit' => 1, 'total' => 5, 'next_cursor' => null],
            ],
            null,
            [],
            fn (array $p): Collection => throw new \LogicException('no next page to fetch')
        );
        self::assertNull($page->nextPage());
    }
}
