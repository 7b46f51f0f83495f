<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\Exception\ApiErrorException;
use Lightbox\LightboxObject;

/**
 * `$lb->reso`: the studio's photos as a RESO Media feed (docs/api.md §33), in OData JSON.
 * `media()` (generated) answers one page; `iterateMedia()` walks every record and `mediaPages()`
 * every page, following `@odata.nextLink` until the feed has no more, with the same `$filter`.
 * The feed's one order is oldest change first, so a photo changed during a walk comes again later
 * in it, never skipped: keep the last `MediaModificationTimestamp` seen and ask for
 * `MediaModificationTimestamp gt <it>` next time to sync only what changed.
 */
class ResoService extends Generated\AbstractResoService
{
    /**
     * Every page of the feed, the next one fetched only when the loop reaches it:
     * `foreach ($lb->reso->mediaPages(['$top' => 500]) as $page)`.
     *
     * @param array{'$filter'?: string, '$top'?: int, '$orderby'?: string} $params
     * @param null|array<string, mixed> $opts request options (not if_none_match: every page is new)
     * @return \Generator<int, LightboxObject>
     * @throws ApiErrorException
     */
    public function mediaPages(array $params = [], ?array $opts = null): \Generator
    {
        unset($params['cursor']);
        if ($opts !== null) {
            unset($opts['if_none_match']);
        }
        $page = $this->media($params, $opts);
        while (true) {
            assert($page instanceof LightboxObject);
            yield $page;
            $cursor = self::nextCursor($page);
            if ($cursor === null) {
                return;
            }
            $page = $this->media(['cursor' => $cursor] + $params, $opts);
        }
    }

    /**
     * Every record of the feed (`$top` is the page size), following `@odata.nextLink`:
     * `foreach ($lb->reso->iterateMedia(['$filter' => "ResourceRecordKey eq 'BRI-20431'"]) as $m)`.
     *
     * @param array{'$filter'?: string, '$top'?: int, '$orderby'?: string} $params
     * @param null|array<string, mixed> $opts
     * @return \Generator<int, LightboxObject>
     * @throws ApiErrorException
     */
    public function iterateMedia(array $params = [], ?array $opts = null): \Generator
    {
        foreach ($this->mediaPages($params, $opts) as $page) {
            foreach ($page->value as $record) {
                yield $record;
            }
        }
    }

    /** The cursor of the page's `@odata.nextLink`, or null after the last page. */
    private static function nextCursor(LightboxObject $page): ?string
    {
        $link = $page['@odata.nextLink'];
        if (!is_string($link) || $page->value === []) {
            return null;
        }
        parse_str((string) parse_url($link, PHP_URL_QUERY), $query);
        $cursor = $query['cursor'] ?? null;
        return is_string($cursor) && $cursor !== '' ? $cursor : null;
    }
}
