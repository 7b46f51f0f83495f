<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

/**
 * A multipart/form-data body of files. With curl each file is a CURLFile (read from disk as it is
 * sent, never whole into memory) or a CURLStringFile (bytes the caller already holds).
 */
final class MultipartBody
{
    /**
     * @param list<\CURLFile|\CURLStringFile> $files
     * @param list<string> $temporary files made for this body, removed by release()
     */
    public function __construct(public readonly array $files, private array $temporary = [])
    {
    }

    /**
     * The body as one stream (for a PSR-18 client): written to php://temp, which keeps at most
     * 2 MiB in memory and spills the rest to a temporary file.
     *
     * @return array{0: resource, 1: string} the stream (rewound) and its content type
     */
    public function toStream(): array
    {
        $boundary = 'lightbox-' . bin2hex(random_bytes(12));
        $out = fopen('php://temp/maxmemory:2097152', 'w+b');
        if ($out === false) {
            throw new \RuntimeException('cannot open php://temp');
        }
        foreach ($this->files as $i => $file) {
            $name = str_replace(['"', "\r", "\n"], ['%22', '', ''], (string) $file->postname);
            $type = (string) $file->mime !== '' ? (string) $file->mime : 'application/octet-stream';
            fwrite($out, "--{$boundary}\r\nContent-Disposition: form-data; name=\"files[{$i}]\"; "
                . "filename=\"{$name}\"\r\nContent-Type: {$type}\r\n\r\n");
            if ($file instanceof \CURLStringFile) {
                fwrite($out, $file->data);
            } else {
                $in = fopen($file->name, 'rb');
                if ($in === false) {
                    throw new \RuntimeException('cannot read ' . $file->name);
                }
                stream_copy_to_stream($in, $out);
                fclose($in);
            }
            fwrite($out, "\r\n");
        }
        fwrite($out, "--{$boundary}--\r\n");
        rewind($out);
        return [$out, 'multipart/form-data; boundary=' . $boundary];
    }

    /** Removes the temporary copies made of non-file streams. */
    public function release(): void
    {
        foreach ($this->temporary as $path) {
            if (is_file($path)) {
                unlink($path);
            }
        }
        $this->temporary = [];
    }

    public function __destruct()
    {
        $this->release();
    }
}
