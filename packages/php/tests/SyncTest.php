<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Tests\Support\LiveTestCase;

/**
 * The README's incremental sync recipe (examples/sync.php), against the real server. It needs the
 * list filters of API section 19; until the server has them, this test says so and is skipped.
 */
final class SyncTest extends LiveTestCase
{
    public function testTheSyncRecipeSeesChangesAndDeletions(): void
    {
        $lb = self::client();
        $old = $lb->listings->create(['address' => 'Old Sync Street']);
        $gone = $lb->listings->create(['address' => 'Gone Sync Street']);
        usleep(20_000);
        $since = gmdate('Y-m-d\TH:i:s.v\Z');
        usleep(20_000);
        $new = $lb->listings->create(['address' => 'New Sync Street']);
        $lb->listings->update($old->id, ['beds' => 4]);
        $lb->listings->delete($gone->id);

        $env = array_merge(getenv(), [
            'LIGHTBOX_API_KEY' => self::server()->apiKey,
            'LIGHTBOX_BASE_URL' => self::server()->baseUrl,
        ]);
        $proc = proc_open(
            [PHP_BINARY, dirname(__DIR__) . '/examples/sync.php', $since],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
            null,
            $env
        );
        $out = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        self::assertSame(0, proc_close($proc), $out);
        self::assertStringContainsString("changed {$new->id}\n", $out);
        self::assertStringContainsString("changed {$old->id}\n", $out);
        self::assertStringContainsString("deleted {$gone->id}\n", $out);
        self::assertStringNotContainsString("changed {$gone->id}\n", $out);
    }
}
