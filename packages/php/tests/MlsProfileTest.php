<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\ValidationException;
use Lightbox\LightboxObject;
use Lightbox\Tests\Support\LiveTestCase;

/** docs/api.md §31: every MLS profile method, and a gallery's compliance report. */
final class MlsProfileTest extends LiveTestCase
{
    public function testProfilesAndCompliance(): void
    {
        $lb = self::client();
        $profile = $lb->mlsProfiles->create(['name' => 'Bright MLS', 'max_photos' => 25]);
        self::assertInstanceOf(LightboxObject::class, $profile);
        self::assertStringStartsWith('mlp_', $profile->id);
        self::assertSame([2048, 25, true], [$profile->max_long_edge, $profile->max_photos, $profile->forbid_text]);
        self::assertFalse($lb->mlsProfiles->update($profile->id, ['forbid_people' => false])->forbid_people);
        self::assertSame('Bright MLS', $lb->mlsProfiles->retrieve($profile->id)->name);
        $ids = [];
        foreach ($lb->mlsProfiles->all(['limit' => 2])->autoPagingIterator() as $p) {
            $ids[] = $p->id;
        }
        self::assertContains($profile->id, $ids);

        $gallery = $lb->listings->create(['address' => '31 Compliance Court']);
        try {
            $lb->listings->compliance($gallery->id);
            self::fail('a gallery without a profile was checked');
        } catch (ValidationException $e) {
            self::assertSame(400, $e->getHttpStatus());
        }
        $named = $lb->listings->compliance($gallery->id, ['profile_id' => $profile->id]);
        self::assertSame([$profile->id, 'pass', []], [$named->profile_id, $named->status, $named->photos]);
        $lb->listings->update($gallery->id, ['mls_profile_id' => $profile->id]);
        self::assertSame($profile->id, $lb->listings->compliance($gallery->id)->profile_id);

        self::assertNull($lb->mlsProfiles->delete($profile->id));
        self::assertNull($lb->listings->retrieve($gallery->id)->mls_profile_id);
        $this->expectException(NotFoundException::class);
        $lb->mlsProfiles->retrieve($profile->id);
    }
}
