<?php

/**
 * PHPUnit's bootstrap: loads the library through init.php (the Composer-less way; the Composer
 * way is checked by bin/ci.sh) and the test helpers. The shared server starts on first use.
 */

declare(strict_types=1);

require dirname(__DIR__) . '/init.php';
require __DIR__ . '/Support/TestServer.php';
require __DIR__ . '/Support/Process.php';
require __DIR__ . '/Support/LiveTestCase.php';
