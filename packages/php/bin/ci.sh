#!/bin/sh
# Everything CI checks for the PHP library (`npm run test:php` from the repository's root):
# generated code matches the OpenAPI document and covers every operation, every file parses,
# PSR-12, and PHPUnit against a real server (which also installs the package with Composer from
# a path repository and runs the init.php example). Needs Node 22.18+ on PATH for the server, and
# Debian's php8.2-cli php-curl php-mbstring phpunit php-codesniffer composer, plus the PSR-7/17/18
# interfaces (php-psr-http-client php-psr-http-message php-psr-http-factory) and Guzzle
# (php-guzzlehttp-guzzle) for the tests that send through a PSR-18 client instead of curl: the
# ones missing are installed here with apt-get when we may (root, or sudo without a password).
#
# `--lint-only` runs the static checks (Composer, drift, php -l, PSR-12: `./run lint` runs them),
# `--tests-only` PHPUnit alone (`./run test` runs that); other arguments go to PHPUnit.
set -eu
cd "$(dirname "$0")/.."
mode=all
case "${1:-}" in
  --lint-only) mode=lint; shift ;;
  --tests-only) mode=tests; shift ;;
esac

missing=""
has() { "$@" >/dev/null 2>&1; }
has command -v php || missing="$missing php8.2-cli"
has php -r 'exit(function_exists("curl_init") ? 0 : 1);' || missing="$missing php-curl"
has php -r 'exit(function_exists("mb_strlen") ? 0 : 1);' || missing="$missing php-mbstring"
has command -v phpunit || missing="$missing phpunit"
has command -v phpcs || missing="$missing php-codesniffer"
has command -v composer || missing="$missing composer"
[ -f /usr/share/php/Psr/Http/Client/ClientInterface.php ] || missing="$missing php-psr-http-client"
[ -f /usr/share/php/Psr/Http/Message/RequestInterface.php ] || missing="$missing php-psr-http-message"
[ -f /usr/share/php/Psr/Http/Message/RequestFactoryInterface.php ] || missing="$missing php-psr-http-factory"
[ -f /usr/share/php/GuzzleHttp/autoload.php ] || missing="$missing php-guzzlehttp-guzzle"
if [ -n "$missing" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi
  if command -v apt-get >/dev/null 2>&1 && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    echo "== installing Debian's$missing"
    # shellcheck disable=SC2086 # one word per package
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing ||
      { $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; }
  else
    echo "The PHP library's checks need Debian's$missing: sudo apt-get install$missing" >&2
    exit 1
  fi
fi

if [ "$mode" != tests ]; then
  echo '== composer validate --strict (the package Composer users install from a path repository)'
  COMPOSER_DISABLE_NETWORK=1 composer validate --strict --no-interaction

  echo '== drift and completeness: php bin/generate.php --check'
  php bin/generate.php --check

  echo '== php -l on every file'
  find . -name '*.php' -not -path './vendor/*' -print0 | xargs -0 -n 1 php -l >/dev/null
  echo "$(find . -name '*.php' -not -path './vendor/*' | wc -l) files parse"

  echo '== phpcs --standard=PSR12'
  phpcs
fi
[ "$mode" != lint ] || exit 0

echo '== phpunit'
phpunit "$@"
