<?php

/**
 * Generates the PHP client's resource methods from the OpenAPI document.
 *
 *   php bin/generate.php [--check] [--openapi=PATH]
 *
 * Reads the document the app serves (packages/client/openapi.json, kept equal to the app's by
 * `npm run client:types -- --check`) and writes, under src/Service/:
 *   - Generated/Abstract<Name>Service.php: one method per JSON operation, with its path
 *     parameters as arguments and its query and body parameters listed in the docblock;
 *   - <Name>Service.php, once, when missing: the hand-written class on top (uploads, downloads);
 *   - ServiceFactory.php: the `$lb->listings`... properties of LightboxClient;
 *   - Generated/Operations.php: every operationId and the method that covers it.
 * --check writes nothing and exits 1 when a file differs from what it would write (drift), or
 * when an operation of the document has no method (completeness: a hand-written operation whose
 * method is missing fails here).
 */

declare(strict_types=1);

$root = dirname(__DIR__);
$check = in_array('--check', $argv, true);
$openapi = $root . '/../client/openapi.json';
foreach ($argv as $arg) {
    if (str_starts_with($arg, '--openapi=')) {
        $openapi = substr($arg, strlen('--openapi='));
    }
}
$doc = json_decode((string) file_get_contents($openapi), true, 512, JSON_THROW_ON_ERROR);

/** Service property => class name. A path's first segment after /v1 picks its service. */
const SERVICES = [
    'listings' => 'ListingService',
    'clients' => 'ClientService',
    'media' => 'MediaService',
    'notifications' => 'NotificationService',
    'webhookEndpoints' => 'WebhookEndpointService',
    'events' => 'EventService',
    'account' => 'AccountService',
    'products' => 'ProductService',
    'invoices' => 'InvoiceService',
    'mlsProfiles' => 'MlsProfileService',
    'reso' => 'ResoService',
];

/**
 * operationId => [service, method, hand-written?]. An operation not named here still gets a method:
 * on the service of its path, named after its operationId (the generator says so).
 */
const NAMES = [
    'getOpenApi' => ['client', 'openapi', true],
    'getAccount' => ['account', 'retrieve', false],
    'deleteTestData' => ['account', 'deleteTestData', false],
    'listListings' => ['listings', 'all', false],
    'createListing' => ['listings', 'create', false],
    'getListing' => ['listings', 'retrieve', false],
    'updateListing' => ['listings', 'update', false],
    'deleteListing' => ['listings', 'delete', false],
    'replaceClientLink' => ['listings', 'replaceClientLink', false],
    'updateClientLink' => ['listings', 'updateClientLink', false],
    'getListingFavorites' => ['listings', 'favorites', false],
    'publishPropertyPage' => ['listings', 'publishPropertyPage', false],
    'unpublishPropertyPage' => ['listings', 'unpublishPropertyPage', false],
    // docs/api.md §28: share links, in this library's words (all, retrieve) like the rest.
    'createShareLink' => ['listings', 'createShareLink', false],
    'listShareLinks' => ['listings', 'allShareLinks', false],
    'getShareLink' => ['listings', 'retrieveShareLink', false],
    'updateShareLink' => ['listings', 'updateShareLink', false],
    'deleteShareLink' => ['listings', 'deleteShareLink', false],
    'rotateShareLink' => ['listings', 'rotateShareLink', false],
    'notifyShareLink' => ['listings', 'notifyShareLink', false],
    'getShareLinkFavorites' => ['listings', 'shareLinkFavorites', false],
    'listClients' => ['clients', 'all', false],
    'createClient' => ['clients', 'create', false],
    'getClient' => ['clients', 'retrieve', false],
    'updateClient' => ['clients', 'update', false],
    'deleteClient' => ['clients', 'delete', false],
    'listClientListings' => ['clients', 'allListings', false],
    'assignListing' => ['clients', 'assign', false],
    'unassignListing' => ['clients', 'unassign', false],
    'notifyClient' => ['clients', 'notify', false],
    'rotateClientPortal' => ['clients', 'rotatePortal', false],
    'listNotifications' => ['notifications', 'all', false],
    'getNotification' => ['notifications', 'retrieve', false],
    'createWebhookEndpoint' => ['webhookEndpoints', 'create', false],
    'listWebhookEndpoints' => ['webhookEndpoints', 'all', false],
    'getWebhookEndpoint' => ['webhookEndpoints', 'retrieve', false],
    'updateWebhookEndpoint' => ['webhookEndpoints', 'update', false],
    'deleteWebhookEndpoint' => ['webhookEndpoints', 'delete', false],
    'rotateWebhookSecret' => ['webhookEndpoints', 'rotateSecret', false],
    'testWebhookEndpoint' => ['webhookEndpoints', 'test', false],
    'listWebhookDeliveries' => ['webhookEndpoints', 'allDeliveries', false],
    'retryWebhookDelivery' => ['webhookEndpoints', 'retryDelivery', false],
    'listEvents' => ['events', 'all', false],
    'getEvent' => ['events', 'retrieve', false],
    'uploadMedia' => ['media', 'upload', true],
    'listMedia' => ['media', 'all', false],
    'getMedia' => ['media', 'retrieve', false],
    'updateMedia' => ['media', 'update', false],
    'deleteMedia' => ['media', 'delete', false],
    'getMediaContent' => ['media', 'download', true],
    'reorderMedia' => ['media', 'reorder', true],
    'getSuggestedMediaOrder' => ['media', 'suggestedOrder', false],
    'getMediaVariant' => ['media', 'downloadVariant', true],
    'describeUploads' => ['media', 'describeUploads', true],
    'createUpload' => ['media', 'createUpload', true],
    'getUpload-head' => ['media', 'getUploadOffset', true],
    'appendUpload' => ['media', 'appendUpload', true],
    'terminateUpload' => ['media', 'abandonUpload', true],
    // docs/api.md §29: products and invoices, in this library's words (all, retrieve) like the rest.
    'listProducts' => ['products', 'all', false],
    'createProduct' => ['products', 'create', false],
    'getProduct' => ['products', 'retrieve', false],
    'updateProduct' => ['products', 'update', false],
    'deleteProduct' => ['products', 'delete', false],
    'listInvoices' => ['invoices', 'all', false],
    'createInvoice' => ['invoices', 'create', false],
    'getInvoice' => ['invoices', 'retrieve', false],
    'updateInvoice' => ['invoices', 'update', false],
    'deleteInvoice' => ['invoices', 'delete', false],
    'issueInvoice' => ['invoices', 'issue', false],
    'voidInvoice' => ['invoices', 'void', false],
    'createPayment' => ['invoices', 'createPayment', false],
    'listPayments' => ['invoices', 'allPayments', false],
    'getInvoicePdf' => ['invoices', 'downloadPdf', true],
    // docs/api.md §31: MLS profiles, and a gallery's compliance with one.
    'listMlsProfiles' => ['mlsProfiles', 'all', false],
    'createMlsProfile' => ['mlsProfiles', 'create', false],
    'getMlsProfile' => ['mlsProfiles', 'retrieve', false],
    'updateMlsProfile' => ['mlsProfiles', 'update', false],
    'deleteMlsProfile' => ['mlsProfiles', 'delete', false],
    'getListingCompliance' => ['listings', 'compliance', false],
    // docs/api.md §32: the listing kit, as in the TypeScript client; an item's bytes written by hand.
    'getKit' => ['listings', 'getKit', false],
    'buildKit' => ['listings', 'buildKit', false],
    'getKitItem' => ['listings', 'downloadKitItem', true],
    // docs/api.md §33: the RESO Media feed (OData), one page: `$lightbox->reso->media([...])`.
    'resoMedia' => ['reso', 'media', false],
];

/** Headers every call handles through its options, not as parameters. */
const OPTION_HEADERS = ['idempotency-key', 'if-none-match'];

function deref(array $doc, array $node): array
{
    $seen = 0;
    while (isset($node['$ref']) && $seen++ < 20) {
        $target = $doc;
        foreach (explode('/', substr($node['$ref'], 2)) as $part) {
            $target = $target[str_replace(['~1', '~0'], ['/', '~'], $part)];
        }
        $node = $target;
    }
    return $node;
}

function camel(string $name): string
{
    return lcfirst(str_replace(' ', '', ucwords(preg_replace('/[^A-Za-z0-9]+/', ' ', $name))));
}

function singular(string $word): string
{
    return str_ends_with($word, 's') ? substr($word, 0, -1) : $word;
}

/** A PHPDoc type for a JSON schema. */
function phpType(array $doc, array $schema, int $depth = 0): string
{
    $schema = deref($doc, $schema);
    $types = [];
    foreach (['anyOf', 'oneOf'] as $k) {
        if (isset($schema[$k])) {
            foreach ($schema[$k] as $s) {
                $types[] = phpType($doc, $s, $depth);
            }
            return implode('|', array_unique(explode('|', implode('|', $types))));
        }
    }
    if (isset($schema['enum'])) {
        return implode('|', array_map(
            fn ($v) => $v === null ? 'null' : (is_string($v) ? "'" . $v . "'" : var_export($v, true)),
            $schema['enum']
        ));
    }
    if (isset($schema['const'])) {
        return is_string($schema['const']) ? "'" . $schema['const'] . "'" : var_export($schema['const'], true);
    }
    $type = $schema['type'] ?? null;
    foreach ((array) $type as $t) {
        $types[] = match ($t) {
            'integer' => 'int',
            'number' => 'float|int',
            'string' => 'string',
            'boolean' => 'bool',
            'null' => 'null',
            'array' => isset($schema['items']) && $depth < 2
                ? 'list<' . phpType($doc, $schema['items'], $depth + 1) . '>' : 'list<mixed>',
            'object' => 'array<string, mixed>',
            default => 'mixed',
        };
    }
    return $types === [] ? 'mixed' : implode('|', $types);
}

/** The operation's parameters of one place (path, query), references resolved, option headers left out. */
function params(array $doc, array $op, array $pathItem, string $in): array
{
    $out = [];
    foreach (array_merge($pathItem['parameters'] ?? [], $op['parameters'] ?? []) as $p) {
        $p = deref($doc, $p);
        if (($p['in'] ?? '') === $in) {
            $out[$p['name']] = $p;
        }
    }
    return $out;
}

function firstSentence(?string $text): string
{
    $text = trim((string) $text);
    if ($text === '') {
        return '';
    }
    $para = preg_split('/\n\s*\n/', $text)[0];
    return trim(preg_replace('/\s+/', ' ', $para));
}

/** Wraps text into docblock lines of at most 110 characters. */
function docLines(string $text, string $indent = '     * '): string
{
    if ($text === '') {
        return '';
    }
    $out = '';
    $continuation = str_starts_with($text, '@') ? '    ' : '';
    $lines = explode("\n", wordwrap($text, 110 - strlen($indent) - strlen($continuation), "\n", false));
    foreach ($lines as $i => $line) {
        $out .= rtrim($indent . ($i > 0 ? $continuation : '') . $line) . "\n";
    }
    return $out;
}

$operations = [];
$notes = [];
foreach ($doc['paths'] as $path => $item) {
    if (!str_starts_with($path, '/v1/')) {
        continue;
    }
    foreach (['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as $verb) {
        if (!isset($item[$verb]['operationId'])) {
            continue;
        }
        $op = $item[$verb];
        $id = $op['operationId'];
        if (isset(NAMES[$id])) {
            [$service, $method, $manual] = NAMES[$id];
        } else {
            $segments = explode('/', trim($path, '/'));
            $service = camel($segments[1] ?? 'client');
            if (preg_match('#^/v1/listings/\{[^}]+\}/(media|uploads)#', $path) === 1) {
                $service = 'media';
            }
            $method = camel($id);
            $manual = false;
            $notes[] = "note: {$id} ({$verb} {$path}) has no name in bin/generate.php's NAMES:"
                . " generated as \$lb->{$service}->{$method}()";
        }
        $operations[$id] = compact('id', 'verb', 'path', 'op', 'item', 'service', 'method', 'manual');
    }
}
ksort($operations);

$files = [];
$byService = [];
foreach ($operations as $o) {
    $byService[$o['service']][] = $o;
}
foreach (array_keys($byService) as $service) {
    if ($service !== 'client' && !isset(SERVICES[$service])) {
        fwrite(STDERR, "error: operations on /v1/... map to a service `{$service}` that SERVICES does not name:"
            . " add it to bin/generate.php\n");
        exit(1);
    }
}

$header = "<?php\n\n// Generated by `php bin/generate.php` from the OpenAPI document (packages/client/openapi.json).\n"
    . "// Do not edit: change the API's schemas, regenerate the document, and run the script again.\n\n"
    . "declare(strict_types=1);\n\n";

foreach (SERVICES as $service => $class) {
    $methods = '';
    $ops = $byService[$service] ?? [];
    usort($ops, fn ($a, $b) => [$a['path'], $a['verb']] <=> [$b['path'], $b['verb']]);
    foreach ($ops as $o) {
        if ($o['manual']) {
            continue;
        }
        $op = $o['op'];
        $pathParams = params($doc, $op, $o['item'], 'path');
        $queryParams = array_diff_key(params($doc, $op, $o['item'], 'query'), []);
        $bodySchema = null;
        if (isset($op['requestBody']['content']['application/json']['schema'])) {
            $bodySchema = deref($doc, $op['requestBody']['content']['application/json']['schema']);
        }
        $success = array_values(array_filter(
            array_keys($op['responses']),
            fn ($s) => (int) $s >= 200 && (int) $s < 300
        ));
        $isList = false;
        foreach ($success as $s) {
            $schema = $op['responses'][$s]['content']['application/json']['schema'] ?? null;
            if ($schema !== null) {
                $schema = deref($doc, $schema);
                if (isset($schema['properties']['data'], $schema['properties']['pagination'])) {
                    $isList = true;
                }
            }
        }
        $emptyOnly = $success !== [] && array_filter(
            $success,
            fn ($s) => isset($op['responses'][$s]['content'])
        ) === [];

        // Path arguments: a lone {id} is $id; with several, each {id} is named after its collection.
        $args = [];
        $phpPath = $o['path'];
        $segments = explode('/', trim($o['path'], '/'));
        foreach ($segments as $i => $seg) {
            if (preg_match('/^\{(.+)\}$/', $seg, $m) !== 1) {
                continue;
            }
            $name = $m[1];
            $var = count($pathParams) > 1 && $name === 'id'
                ? camel(singular($segments[$i - 1])) . 'Id' : camel($name);
            $args[] = ['var' => $var, 'param' => $pathParams[$name] ?? ['description' => '']];
            $phpPath = str_replace('{' . $name . '}', "' . self::segment(\$" . $var . ") . '", $phpPath);
        }
        $phpPath = "'" . $phpPath . "'";
        $phpPath = str_replace(" . ''", '', $phpPath);

        $shape = [];
        foreach ($queryParams as $name => $p) {
            $shape[] = $name . '?: ' . phpType($doc, $p['schema'] ?? []);
        }
        if ($bodySchema !== null) {
            $required = $bodySchema['required'] ?? [];
            foreach ($bodySchema['properties'] ?? [] as $name => $s) {
                $shape[] = $name . (in_array($name, $required, true) ? '' : '?') . ': ' . phpType($doc, $s);
            }
        }
        $hasParams = $shape !== [];

        $summary = firstSentence($op['summary'] ?? '');
        $description = firstSentence($op['description'] ?? '');
        $doc1 = docLines($summary !== '' ? rtrim($summary, '.') . '.' : $o['id']);
        if ($description !== '' && $description !== $summary) {
            $doc1 .= "     *\n" . docLines($description);
        }
        $doc1 .= "     *\n"
            . docLines(strtoupper($o['verb']) . ' ' . $o['path'] . ' (operationId `' . $o['id'] . '`).');
        $doc1 .= "     *\n";
        foreach ($args as $a) {
            $doc1 .= docLines('@param string $' . $a['var'] . ' ' . firstSentence($a['param']['description'] ?? ''));
        }
        if ($hasParams) {
            $doc1 .= "     * @param null|array{\n";
            foreach ($shape as $i => $line) {
                $doc1 .= '     *     ' . $line . ($i < count($shape) - 1 ? ',' : '') . "\n";
            }
            $doc1 .= "     * } \$params\n";
            $names = [];
            foreach ($queryParams as $name => $p) {
                $names[] = '`' . $name . '` (query): ' . rtrim(firstSentence($p['description'] ?? ''), '.');
            }
            foreach (array_keys($bodySchema['properties'] ?? []) as $name) {
                $names[] = '`' . $name . '`';
            }
        }
        $doc1 .= docLines(
            '@param null|array<string, mixed> $opts request options: idempotency_key, headers, max_retries, timeout'
            . ($o['verb'] === 'get' ? ', if_none_match' : '')
        );
        $returns = $emptyOnly ? 'null' : ($isList ? 'Collection' : 'LightboxObject');
        if ($o['verb'] === 'get') {
            $returns .= '|NotModified';
        }
        $doc1 .= "     * @return {$returns}\n";
        $doc1 .= "     * @throws \\Lightbox\\Exception\\ApiErrorException\n";

        $sig = [];
        foreach ($args as $a) {
            $sig[] = 'string $' . $a['var'];
        }
        if ($hasParams) {
            $sig[] = '?array $params = null';
        }
        $sig[] = '?array $opts = null';
        $phpReturn = $emptyOnly ? 'mixed' : ($isList ? 'Collection' : 'LightboxObject')
            . ($o['verb'] === 'get' && !$emptyOnly ? '|NotModified' : '');
        $quoted = array_map(fn ($n) => "'" . $n . "'", array_keys($queryParams));
        $queryList = '[' . implode(', ', $quoted) . ']';
        if (strlen($queryList) > 100) {
            // One name a line, so no generated line passes PSR-12's 120 characters.
            $queryList = "[\n                " . implode(",\n                ", $quoted) . ",\n            ]";
        }
        $call = "\$this->request('" . strtoupper($o['verb']) . "', " . $phpPath . ', '
            . ($hasParams ? '$params' : 'null') . ', $opts, ' . $queryList . ', '
            . ($bodySchema !== null ? 'true' : 'false') . ')';
        $signature = '    public function ' . $o['method'] . '(' . implode(', ', $sig) . '): ' . $phpReturn;
        if (strlen($signature) > 116) {
            $signature = '    public function ' . $o['method'] . "(\n        " . implode(",\n        ", $sig)
                . "\n    ): " . $phpReturn;
            $open = " {\n";
        } else {
            $open = "\n    {\n";
        }
        $body = strlen('        return ' . $call . ';') > 118
            ? '        return $this->request(' . "\n            '" . strtoupper($o['verb']) . "',\n            "
                . str_replace(' . ', "\n                . ", $phpPath) . ",\n            "
                . ($hasParams ? '$params' : 'null') . ",\n            \$opts,\n            "
                . $queryList . ",\n            " . ($bodySchema !== null ? 'true' : 'false') . "\n        );"
            : '        return ' . $call . ';';
        if ($emptyOnly) {
            $body = str_replace('        return $this->request(', '        $this->request(', $body)
                . "\n        return null;";
        }
        $methods .= "\n    /**\n" . $doc1 . "     */\n" . $signature . $open . $body . "\n    }\n";
    }
    $abstract = 'Abstract' . $class;
    $files["src/Service/Generated/{$abstract}.php"] = $header
        . "namespace Lightbox\\Service\\Generated;\n\n"
        . "use Lightbox\\Collection;\nuse Lightbox\\LightboxObject;\nuse Lightbox\\NotModified;\n\n"
        . "/**\n * The generated operations of `\$lb->{$service}`; the hand-written {$class} adds the rest.\n */\n"
        . "abstract class {$abstract} extends \\Lightbox\\Service\\AbstractService\n{"
        . rtrim($methods === '' ? "\n" : $methods, "\n") . "\n}\n";
    $stub = "src/Service/{$class}.php";
    if (!is_file($root . '/' . $stub)) {
        $files[$stub] = "<?php\n\ndeclare(strict_types=1);\n\nnamespace Lightbox\\Service;\n\n"
            . "/**\n * `\$lb->{$service}`: every operation is generated (see Generated\\{$abstract}).\n */\n"
            . "class {$class} extends Generated\\{$abstract}\n{\n}\n";
    }
}

$props = '';
$map = '';
foreach (SERVICES as $service => $class) {
    $props .= " * @property-read {$class} \${$service}\n";
    $map .= "        '{$service}' => {$class}::class,\n";
}
$props .= " * @property-read WebhookService \$webhooks\n";
$map .= "        'webhooks' => WebhookService::class,\n";
$files['src/Service/ServiceFactory.php'] = $header
    . "namespace Lightbox\\Service;\n\n"
    . "/**\n * The services of LightboxClient, made the first time each property is read.\n *\n" . $props . " */\n"
    . "final class ServiceFactory\n{\n"
    . "    /** @var array<string, class-string> */\n    public const CLASSES = [\n" . $map . "    ];\n\n"
    . "    /** @var array<string, object> */\n    private array \$services = [];\n\n"
    . "    public function __construct(private readonly \\Lightbox\\LightboxClient \$client)\n    {\n    }\n\n"
    . "    public function __get(string \$name): object\n    {\n"
    . "        if (!isset(self::CLASSES[\$name])) {\n"
    . "            throw new \\Lightbox\\Exception\\InvalidArgumentException(\"no service named {\$name}\");\n"
    . "        }\n"
    . "        return \$this->services[\$name] ??= new (self::CLASSES[\$name])(\$this->client);\n    }\n}\n";

$table = '';
foreach ($operations as $o) {
    $table .= "        '" . $o['id'] . "' => [\n            '" . $o['service'] . "',\n            '" . $o['method']
        . "',\n            '" . strtoupper($o['verb']) . "',\n            '" . $o['path'] . "',\n        ],\n";
}
$files['src/Service/Generated/Operations.php'] = $header
    . "namespace Lightbox\\Service\\Generated;\n\n"
    . "/**\n * Every /v1 operation of the OpenAPI document and the method that covers it:\n"
    . " * operationId => [service ('client' for LightboxClient itself), method, HTTP method, path].\n */\n"
    . "final class Operations\n{\n    public const ALL = [\n" . $table . "    ];\n}\n";

$stale = 0;
foreach ($files as $file => $text) {
    $current = @file_get_contents($root . '/' . $file);
    if ($current === $text) {
        continue;
    }
    if ($check) {
        $stale++;
        fwrite(STDERR, "{$file} is out of date with the OpenAPI document: run `php packages/php/bin/generate.php`\n");
    } else {
        file_put_contents($root . '/' . $file, $text);
        echo "wrote {$file}\n";
    }
}
foreach ($notes as $note) {
    fwrite(STDERR, $note . "\n");
}

// Completeness: every operation has its method on the class that serves it.
if ($stale === 0) {
    require_once $root . '/init.php';
    $missing = 0;
    foreach ($operations as $o) {
        $class = $o['service'] === 'client'
            ? \Lightbox\LightboxClient::class : 'Lightbox\\Service\\' . SERVICES[$o['service']];
        if (!method_exists($class, $o['method'])) {
            $missing++;
            fwrite(STDERR, "operation {$o['id']} ({$o['verb']} {$o['path']}) has no method:"
                . " {$class}::{$o['method']}()\n");
        }
    }
    if ($missing > 0) {
        exit(1);
    }
}
if ($stale > 0) {
    exit(1);
}
if ($check) {
    echo 'the PHP client covers all ' . count($operations) . " /v1 operations of the OpenAPI document\n";
}
