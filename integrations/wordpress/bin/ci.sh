#!/bin/sh
# Everything CI checks for the WordPress plugin (`npm run test:wordpress` from the repository's
# root): every file parses, the coding standard, PHPUnit, the zip builds, and the end-to-end run
# (Debian's WordPress on PHP's built-in server, a MariaDB database made for the run, a real
# Lightbox). Needs Debian's wordpress wordpress-theme-twentytwentythree php8.2-cli php8.2-mysql
# php-curl php-gd php-mbstring phpunit php-codesniffer zip mariadb-client chromium, a MariaDB
# server on 127.0.0.1:3306 whose root may create databases (LIGHTBOX_WP_MYSQL overrides the
# client arguments), root (the site's config goes in /etc/wordpress, as Debian's package reads
# it), and Node 22.18+ on PATH.
set -eu
cd "$(dirname "$0")/.."

echo '== php -l on every file'
find lightbox tests -name '*.php' -print0 | xargs -0 -n 1 php -l >/dev/null
echo "$(find lightbox tests -name '*.php' | wc -l) files parse"

echo '== phpcs (WordPress Coding Standards when installed, else PSR-12 adapted to WordPress style: see phpcs.xml.dist)'
phpcs

echo '== phpunit'
phpunit

echo '== build the zip'
sh bin/build.sh

echo '== end to end'
node --test --test-timeout=600000 test/e2e.test.mjs
