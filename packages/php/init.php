<?php

/**
 * For sites without Composer: `require '/path/to/lightbox-php/init.php';` loads the library's
 * classes on demand (the same PSR-4 layout Composer's autoloader uses: Lightbox\ => src/).
 */

declare(strict_types=1);

if (PHP_VERSION_ID < 80200) {
    throw new RuntimeException('lightbox-php needs PHP 8.2 or later (this is ' . PHP_VERSION . ')');
}
foreach (['curl', 'json'] as $extension) {
    if (!extension_loaded($extension)) {
        throw new RuntimeException("lightbox-php needs the PHP extension {$extension}");
    }
}

spl_autoload_register(static function (string $class): void {
    $prefix = 'Lightbox\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
