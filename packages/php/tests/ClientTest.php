<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Collection;
use Lightbox\Exception\ConflictException;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\PermissionException;
use Lightbox\LightboxClient;
use Lightbox\LightboxObject;
use Lightbox\NotModified;
use Lightbox\Tests\Support\LiveTestCase;

final class ClientTest extends LiveTestCase
{
    public function testGalleriesAndClientsWithPropertyAccess(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '12 Harbour Road', 'beds' => 3, 'status' => 'active']);
        self::assertInstanceOf(LightboxObject::class, $gallery);
        self::assertStringStartsWith('lst_', $gallery->id);
        self::assertSame('12 Harbour Road', $gallery->address);
        self::assertSame($gallery->id, $gallery['id']);
        self::assertSame(201, $gallery->getLastResponse()?->status);
        self::assertNotNull($gallery->getLastResponse()?->requestId());

        $updated = $lb->listings->update($gallery->id, ['description' => 'Sea view']);
        self::assertSame('Sea view', $updated->description);
        self::assertSame('Sea view', $lb->listings->retrieve($gallery->id)->description);

        $email = 'ana-' . bin2hex(random_bytes(3)) . '@example.com';
        $client = $lb->clients->create(['name' => 'Ana Buyer', 'email' => $email]);
        self::assertStringStartsWith('cli_', $client->id);
        $assigned = $lb->clients->assign($client->id, $gallery->id, ['notify' => false]);
        self::assertSame($client->id, $assigned->client_id);
        self::assertInstanceOf(LightboxObject::class, $assigned->client_link);
        self::assertSame(0, $assigned->client_link->views);
        $withListings = $lb->clients->retrieve($client->id);
        self::assertSame($gallery->id, $withListings->listings[0]->id);
        $theirs = $lb->clients->allListings($client->id);
        self::assertInstanceOf(Collection::class, $theirs);
        self::assertCount(1, $theirs);

        $rotated = $lb->clients->rotatePortal($client->id);
        self::assertSame($client->id, $rotated->id);
        self::assertNotSame($withListings->portal_url, $rotated->portal_url);
        self::assertStringContainsString('/c/', $rotated->portal_url);
        $toured = $lb->listings->update($gallery->id, [
            'tours' => [['url' => 'https://youtu.be/dQw4w9WgXcQ', 'label' => 'Film', 'unbranded' => true]],
        ]);
        self::assertSame('https://youtu.be/dQw4w9WgXcQ', $toured->tours[0]->url);

        $relinked = $lb->listings->replaceClientLink($gallery->id);
        self::assertNotSame($assigned->client_link->url, $relinked->client_link->url);
        $notification = $lb->clients->notify($client->id, $gallery->id);
        self::assertStringStartsWith('ntf_', $notification->id);
        self::assertSame($notification->id, $lb->notifications->retrieve($notification->id)->id);
        self::assertGreaterThanOrEqual(1, $lb->notifications->all()->pagination->total);

        self::assertNull($lb->clients->unassign($client->id, $gallery->id));
        self::assertNull($lb->clients->delete($client->id));
        self::assertNull($lb->listings->delete($gallery->id));

        $events = $lb->events->all(['type' => 'listing.created', 'limit' => 5]);
        self::assertSame('listing.created', $events->data[0]->type);
        self::assertSame($events->data[0]->id, $lb->events->retrieve($events->data[0]->id)->id);
        self::assertSame(['data', 'pagination'], array_slice($events->keys(), 0, 2));
        self::assertIsArray($events->toArray()['data']);
    }

    public function testTestModeAndDeleteTestData(): void
    {
        // docs/api.md §20: a test key sees only test data; deleteTestData() empties it.
        $lb = self::client();
        $sandbox = self::client(['api_key' => self::server()->testKey]);
        self::assertStringStartsWith('lbx_test_', self::server()->testKey);
        self::assertFalse($sandbox->account->retrieve()->livemode);
        $gallery = $sandbox->listings->create(['address' => '1 Sandbox Road']);
        self::assertFalse($sandbox->events->all(['limit' => 5])->data[0]->livemode);
        $kept = $lb->listings->create(['address' => '1 Kept Road']);
        try {
            $lb->account->deleteTestData();
            self::fail('a live key deleted test data');
        } catch (PermissionException $e) {
            self::assertSame(403, $e->getHttpStatus());
        }
        $deleted = $sandbox->account->deleteTestData();
        self::assertTrue($deleted->deleted);
        self::assertSame(202, $deleted->getLastResponse()?->status);
        try {
            $sandbox->listings->retrieve($gallery->id);
            self::fail('test data outlived its deletion');
        } catch (NotFoundException) {
        }
        self::assertSame('1 Kept Road', $lb->listings->retrieve($kept->id)->address);
    }

    public function testPropertyPagesPublishAndUnpublish(): void
    {
        $lb = self::client();
        $draft = $lb->listings->create(['address' => '4 Draft Lane']);
        try {
            $lb->listings->publishPropertyPage($draft->id);
            self::fail('a draft gallery was published');
        } catch (ConflictException $e) {
            self::assertSame(409, $e->getHttpStatus());
        }

        $gallery = $lb->listings->create(['address' => '5 Lantern Row', 'status' => 'active']);
        self::assertNull($gallery->property_page);
        $published = $lb->listings->publishPropertyPage($gallery->id);
        $page = $published->property_page;
        self::assertSame(0, $page->views);
        self::assertStringContainsString('/p/', $page->url);
        self::assertStringContainsString('/p/', $page->unbranded_url);
        self::assertNotSame($page->url, $page->unbranded_url);

        self::assertNull($lb->listings->unpublishPropertyPage($gallery->id));
        self::assertNull($lb->listings->retrieve($gallery->id)->property_page);
        $again = $lb->listings->publishPropertyPage($gallery->id);
        self::assertNotSame($page->url, $again->property_page->url);
    }

    public function testConditionalGetAnswersNotModified(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '3 Mill Lane']);
        $first = $lb->listings->retrieve($gallery->id);
        $etag = $first->getLastResponse()?->header('etag');
        self::assertNotNull($etag);
        $again = $lb->listings->retrieve($gallery->id, ['if_none_match' => $etag]);
        self::assertInstanceOf(NotModified::class, $again);
        self::assertSame(304, $again->getLastResponse()->status);
        $lb->listings->update($gallery->id, ['beds' => 2]);
        $changed = $lb->listings->retrieve($gallery->id, ['if_none_match' => $etag]);
        self::assertInstanceOf(LightboxObject::class, $changed);
    }

    public function testTheKeyAndUrlComeFromTheEnvironment(): void
    {
        putenv('LIGHTBOX_API_KEY=' . self::server()->apiKey);
        putenv('LIGHTBOX_BASE_URL=' . self::server()->baseUrl);
        try {
            $lb = new LightboxClient();
            self::assertInstanceOf(Collection::class, $lb->listings->all(['limit' => 1]));
        } finally {
            putenv('LIGHTBOX_API_KEY');
            putenv('LIGHTBOX_BASE_URL');
        }
        $this->expectException(InvalidArgumentException::class);
        new LightboxClient(['base_url' => self::server()->baseUrl]);
    }

    public function testAnyRequestAndTheOpenApiDocument(): void
    {
        $lb = self::client();
        $page = $lb->request('GET', '/v1/listings', ['limit' => 2]);
        self::assertInstanceOf(Collection::class, $page);
        self::assertSame(2, $page->pagination->limit);
        self::assertSame('3.1.0', $lb->openapi()['openapi']);
    }

    /** The document the running server serves, not only the repository's copy, has no operation without a method. */
    public function testEveryOperationTheServerServesHasAMethod(): void
    {
        $ids = [];
        foreach (self::client()->openapi()['paths'] as $path => $item) {
            foreach ($item as $op) {
                if (str_starts_with($path, '/v1/') && is_array($op) && isset($op['operationId'])) {
                    $ids[] = $op['operationId'];
                }
            }
        }
        sort($ids);
        $covered = array_keys(\Lightbox\Service\Generated\Operations::ALL);
        sort($covered);
        self::assertSame($ids, $covered);
    }

    /** The operations no other test calls: a client's update, the link's settings, favorites, a media and a variant. */
    public function testTheRestOfTheOperations(): void
    {
        $lb = self::client();
        $email = 'rest-' . bin2hex(random_bytes(3)) . '@example.com';
        $client = $lb->clients->create(['name' => 'Before', 'email' => $email]);
        self::assertSame('After', $lb->clients->update($client->id, ['name' => 'After'])->name);
        $gallery = $lb->listings->create(['address' => '48 Operations Way']);
        $lb->clients->assign($client->id, $gallery->id, ['notify' => false]);
        $updated = $lb->listings->updateClientLink($gallery->id, ['downloads_enabled' => false]);
        self::assertSame($gallery->id, $updated->id);
        self::assertFalse($updated->client_link->downloads_enabled);
        $favorites = $lb->listings->favorites($gallery->id);
        self::assertSame([], $favorites->media_ids);

        $media = $lb->media->upload($gallery->id, [['data' => self::png(), 'filename' => 'v.png']])->data[0];
        $deadline = microtime(true) + 60;
        do {
            $again = $lb->media->retrieve($gallery->id, $media->id);
            self::assertSame($media->id, $again->id);
            if ($again->variants->status !== 'pending') {
                break;
            }
            usleep(200_000);
        } while (microtime(true) < $deadline);
        self::assertSame('ready', $again->variants->status);
        $thumb = $lb->media->downloadVariant($gallery->id, $media->id, 'thumb');
        self::assertSame(200, $thumb->status);
        self::assertSame($again->variants->thumb->content_type, $thumb->header('content-type'));
        self::assertSame($again->variants->thumb->size, strlen($thumb->body));
    }

    /**
     * docs/api.md §28: every share link method, the selection bounds on the client link, the comments in both
     * favorites reads, and a share link's email (its share_link_id set, no client).
     */
    public function testShareLinksAndProofing(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '8 Proofing Yard', 'status' => 'active']);
        $photos = $lb->media->upload($gallery->id, [
            ['data' => self::png(), 'filename' => 'kitchen.png'],
            ['data' => self::png(), 'filename' => 'garden.png'],
        ])->data;
        $email = 'agents-' . bin2hex(random_bytes(3)) . '@example.com';

        $share = $lb->listings->createShareLink(
            $gallery->id,
            ['label' => 'Agent team', 'email' => $email, 'selection_max' => 1]
        );
        self::assertSame(201, $share->getLastResponse()?->status);
        self::assertStringStartsWith('shl_', $share->id);
        self::assertSame([$gallery->id, $email, null, 1], [
            $share->listing_id,
            $share->email,
            $share->selection_min,
            $share->selection_max,
        ]);
        self::assertSame('Agent team', $lb->listings->retrieveShareLink($gallery->id, $share->id)->label);
        $links = $lb->listings->allShareLinks($gallery->id, ['limit' => 10]);
        self::assertInstanceOf(Collection::class, $links);
        self::assertSame([$share->id], array_map(static fn ($l) => $l->id, $links->data));

        // The email the link was created with, then one more: both carry the link and no client.
        $emailed = array_values(array_filter(
            $lb->notifications->all(['limit' => 20])->data,
            static fn ($n) => $n->share_link_id === $share->id
        ));
        self::assertCount(1, $emailed);
        self::assertNull($emailed[0]->client_id);
        self::assertSame($email, $emailed[0]->to);
        $again = $lb->listings->notifyShareLink($gallery->id, $share->id);
        self::assertSame(202, $again->getLastResponse()?->status);
        self::assertSame($share->id, $again->share_link_id);
        self::assertNull($again->client_id);

        // A visitor marks a photo and comments on another from the page's plain forms.
        self::assertSame(303, self::postForm("{$share->url}/favorites/{$photos[1]->id}", ['on' => '1']));
        self::assertSame(303, self::postForm("{$share->url}/comments/{$photos[0]->id}", ['comment' => 'Brighter']));
        $chosen = $lb->listings->shareLinkFavorites($gallery->id, $share->id);
        self::assertSame([$photos[1]->id], $chosen->media_ids);
        self::assertCount(1, $chosen->comments);
        self::assertSame([$photos[0]->id, 'Brighter'], [$chosen->comments[0]->media_id, $chosen->comments[0]->text]);
        self::assertSame([], $lb->listings->favorites($gallery->id)->comments);

        $renamed = $lb->listings->updateShareLink(
            $gallery->id,
            $share->id,
            ['label' => 'Sellers', 'selection_min' => 1]
        );
        self::assertSame(['Sellers', 1, 1], [$renamed->label, $renamed->selection_min, $renamed->selection_max]);
        $rotated = $lb->listings->rotateShareLink($gallery->id, $share->id);
        self::assertNotSame($share->url, $rotated->url);
        self::assertSame(1, $rotated->favorites_count);

        $silent = $lb->listings->createShareLink($gallery->id, ['label' => 'No email']);
        try {
            $lb->listings->notifyShareLink($gallery->id, $silent->id);
            self::fail('a link without an email was sent');
        } catch (ConflictException $e) {
            self::assertSame(409, $e->getHttpStatus());
        }
        self::assertNull($lb->listings->deleteShareLink($gallery->id, $share->id));
        try {
            $lb->listings->retrieveShareLink($gallery->id, $share->id);
            self::fail('a deleted share link was found');
        } catch (NotFoundException $e) {
            self::assertSame(404, $e->getHttpStatus());
        }

        // The client link takes the same bounds.
        $edith = 'edith-' . bin2hex(random_bytes(3)) . '@example.com';
        $client = $lb->clients->create(['name' => 'Edith', 'email' => $edith]);
        $lb->clients->assign($client->id, $gallery->id, ['notify' => false]);
        $bounded = $lb->listings->updateClientLink($gallery->id, ['selection_min' => 1, 'selection_max' => 2]);
        self::assertSame([1, 2], [$bounded->client_link->selection_min, $bounded->client_link->selection_max]);
        $cleared = $lb->listings->updateClientLink($gallery->id, ['selection_min' => null]);
        self::assertNull($cleared->client_link->selection_min);
    }

    /**
     * A form post from a visitor's browser to a gallery page (no key, no redirect followed).
     *
     * @param array<string, string> $fields
     */
    private static function postForm(string $url, array $fields): int
    {
        $curl = curl_init($url);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => http_build_query($fields),
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
        ]);
        curl_exec($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        curl_close($curl);
        return $status;
    }

    public function testObjectsAreReadOnly(): void
    {
        $gallery = self::client()->listings->create(['address' => '1 Read Only Row']);
        $this->expectException(\LogicException::class);
        $gallery->address = 'changed';
    }
}
