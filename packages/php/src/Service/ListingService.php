<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\Exception\ApiErrorException;
use Lightbox\HttpClient\Response;

/**
 * `$lb->listings`: galleries, their links, compliance and listing kit. The JSON operations are
 * generated (see Generated\AbstractListingService); a kit item's download is written here.
 */
class ListingService extends Generated\AbstractListingService
{
    /**
     * GET /v1/listings/:id/kit/:name (operationId `getKitItem`): one item of a built listing kit
     * (docs/api.md §32): `mls_zip`, `flyer`, `social_square`, `social_portrait`, `social_story`,
     * `slideshow`, `slideshow_unbranded`, `reel` or `teaser`; NotFoundException until it is made.
     *
     * Options: `sink` (a path or an open stream: the bytes are written there as they arrive, not
     * kept in memory: a video may be large), `range` (e.g. `bytes=0-1023`, answered 206),
     * `if_none_match` (304), and the usual request options. Answers the Response (`status`,
     * `headers`, and `body` without a sink).
     *
     * @param array<string, mixed> $opts
     * @throws ApiErrorException
     */
    public function downloadKitItem(string $id, string $name, array $opts = []): Response
    {
        return $this->bytes('/v1/listings/' . self::segment($id) . '/kit/' . self::segment($name), $opts);
    }
}
