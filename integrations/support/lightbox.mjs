// A real Lightbox for the integrations' end-to-end tests: `lightbox serve` from this repository on
// a free 127.0.0.1 port with its own data directory, an account and API key made by the CLI,
// webhook delivery to loopback allowed, and an SMTP server that refuses every recipient (so
// gallery emails end `failed`, which the Email Failed trigger needs). Node built-ins only: each
// integration is its own npm project, and this file is shared by both.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// LIGHTBOX_ROOT runs another checkout's server (one with API sections this branch lacks yet).
const ROOT = process.env.LIGHTBOX_ROOT ?? fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/lightbox.js');

export async function freePort() {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

function run(args, env, input = '') {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  child.stdin.end(input);
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function cli(args, env, input) {
  const p = run(args, env, input);
  const { code } = await p.exited;
  if (code !== 0) throw new Error(`lightbox ${args.join(' ')} exited ${code}: ${p.stderr()}`);
  return p.stdout();
}

/** An SMTP server that greets, then refuses every recipient with a permanent 550. */
async function startRefusingSmtp() {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    socket.write('220 refusing.test ESMTP\r\n');
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 refusing.test\r\n');
        else if (verb === 'MAIL') socket.write('250 OK\r\n');
        else if (verb === 'RCPT') socket.write('550 5.1.1 No such mailbox here\r\n');
        else if (verb === 'QUIT') socket.end('221 Bye\r\n');
        else if (verb === 'RSET' || verb === 'NOOP') socket.write('250 OK\r\n');
        else socket.write('503 5.5.1 Bad sequence\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    stop: async () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/**
 * Starts Lightbox. `lb.api(method, path, body?)` calls it with the key and answers
 * `{status, body, headers}`; `lb.stop()` ends the server and removes its data.
 */
export async function startLightbox({ name = 'Harbour Light Studio', email = 'owner@harbourlight.test' } = {}) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-integration-'));
  const smtp = await startRefusingSmtp();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: base,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    // A local mail catcher on loopback (the start refuses a loopback PUBLIC_URL with real SMTP).
    MAIL_ALLOW_LOCAL: 'true',
  };
  await cli(['accounts', 'create', '--name', name, '--email', email], env, 'correct horse battery\n');
  const key = (await cli(['keys', 'create', '--account', email, '--name', 'integration tests'], env)).trim();
  // A test mode key of the same studio (docs/api.md §20): it sees only the studio's test data.
  const testKey = (
    await cli(['keys', 'create', '--account', email, '--name', 'integration tests (test mode)', '--test'], env)
  ).trim();
  const server = run(['serve'], env);
  let exited = false;
  void server.exited.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`lightbox serve exited: ${server.stderr()}`);
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`lightbox serve not healthy within 60 s: ${server.stderr()}`);
    await sleep(100);
  }

  const api = async (method, urlPath, body, headers = {}) => {
    const res = await fetch(`${base}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };

  /** Polls `fn` until it answers something truthy, or fails after `ms`. */
  const until = async (what, fn, ms = 30_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const value = await fn();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(150);
    }
  };

  /** A multipart upload of one file (the classic way in, section 6). */
  const upload = async (listingId, filename, type, bytes) => {
    const form = new FormData();
    form.append('files', new Blob([bytes], { type }), filename);
    const res = await fetch(`${base}/v1/listings/${listingId}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };

  return {
    base,
    key,
    testKey,
    dataDir,
    api,
    upload,
    until,
    stderr: () => server.stderr(),
    stop: async () => {
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
      await server.exited;
      clearTimeout(timer);
      await smtp.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * An HTTP receiver on 127.0.0.1 that keeps every request (method, path, headers, raw body) and
 * answers `status()` (200 unless changed with `respondWith`).
 */
export async function startReceiver() {
  const requests = [];
  const waiters = new Set();
  let status = 200;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method,
        path: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(entry);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 410 ? 'gone' : 'ok');
      for (const w of waiters) w();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    respondWith: (s) => (status = s),
    /** The first request (after `from`) whose parsed JSON body satisfies `test`. */
    waitFor: async (test, ms = 30_000, from = 0) => {
      const end = Date.now() + ms;
      for (;;) {
        const hit = requests.slice(from).find((r) => {
          try {
            return test(JSON.parse(r.body), r);
          } catch {
            return false;
          }
        });
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`no delivery matched within ${ms} ms (got ${requests.length})`);
        await new Promise((resolve) => {
          const w = () => (waiters.delete(w), resolve());
          waiters.add(w);
          setTimeout(w, 200);
        });
      }
    },
    stop: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A file server on 127.0.0.1 for "media from a URL": serves `files` ({'/name.jpg': {type, bytes}}). */
export async function startFileServer(files) {
  const server = http.createServer((req, res) => {
    const file = files[req.url];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length }).end(file.bytes);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A real JPEG (a 64x48 gradient) made by sharp from the repository's own dependencies. */
export async function makeJpeg() {
  const sharp = createRequire(path.join(ROOT, 'package.json'))('sharp');
  const width = 64;
  const height = 48;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set([x * 4, y * 5, 128], (y * width + x) * 3);
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg()
    .toBuffer();
}
