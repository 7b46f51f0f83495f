#!/bin/sh
# Everything CI checks for the PHP library (`npm run test:php` from the repository's root):
# generated code matches the OpenAPI document and covers every operation, every file parses,
# PSR-12, and PHPUnit against a real server (which also installs the package with Composer from
# a path repository and runs the init.php example). Needs Debian's php8.2-cli php-curl
# php-mbstring phpunit php-codesniffer composer (and php-guzzlehttp-guzzle for the PSR-18 test),
# and Node 22.18+ on PATH for the server.
set -eu
cd "$(dirname "$0")/.."

echo '== drift and completeness: php bin/generate.php --check'
php bin/generate.php --check

echo '== php -l on every file'
find . -name '*.php' -not -path './vendor/*' -print0 | xargs -0 -n 1 php -l >/dev/null
echo "$(find . -name '*.php' -not -path './vendor/*' | wc -l) files parse"

echo '== phpcs --standard=PSR12'
phpcs

echo '== phpunit'
phpunit "$@"
