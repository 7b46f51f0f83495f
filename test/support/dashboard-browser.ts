// A small stand-in for a browser over app.inject (or, HttpBrowser, over real HTTP to a running
// server): it keeps cookies, reads the form token from the last page, and posts forms like a page
// of the dashboard would (same Origin).
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.ts';

let nextAddress = 1;

export interface PostOptions {
  /** The form token to send; by default the one on the last page seen. null sends none. */
  csrf?: string | null;
  headers?: Record<string, string>;
}

export class Browser {
  readonly app: App;
  /** Each browser has its own client address, so sign-in limits per address do not collide. */
  readonly address: string;
  readonly cookies = new Map<string, string>();
  last: LightMyRequestResponse | undefined;

  constructor(app: App, address?: string) {
    this.app = app;
    nextAddress += 1;
    this.address = address ?? `10.0.${Math.floor(nextAddress / 250)}.${(nextAddress % 250) + 1}`;
  }

  private remember(res: LightMyRequestResponse): void {
    for (const c of res.cookies) {
      const expired = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now());
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    this.last = res;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'GET',
      url,
      remoteAddress: this.address,
      headers: { cookie: this.cookieHeader(), ...headers },
    });
    this.remember(res);
    return res;
  }

  /** Follows a redirect the way a browser does after a form (GET of its Location). */
  async follow(res: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    const location = res.headers.location;
    if (typeof location !== 'string') throw new Error(`no redirect to follow (status ${res.statusCode})`);
    // A browser keeps the fragment (#...) to itself: it is never sent to the server.
    return this.get(location.split('#')[0]!);
  }

  /** The `_csrf` value of the last page's first form. */
  token(): string {
    return formToken(this.last?.body ?? '');
  }

  /** A field given a list is sent once per value, as ticked checkboxes that share a name are. */
  async post(
    url: string,
    fields: Readonly<Record<string, string | readonly string[]>>,
    options: PostOptions = {},
  ): Promise<LightMyRequestResponse> {
    const csrf = options.csrf === undefined ? this.token() : options.csrf;
    const body = new URLSearchParams(csrf === null ? {} : { _csrf: csrf });
    for (const [name, value] of Object.entries(fields)) {
      for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
    }
    const res = await this.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.address,
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://localhost',
        'sec-fetch-site': 'same-origin',
        ...options.headers,
      },
      payload: body.toString(),
    });
    this.remember(res);
    return res;
  }

  /** Opens the sign-in page and signs in; returns the POST's response. */
  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}

/** The `_csrf` value of a page's first form. */
function formToken(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (match?.[1] === undefined) throw new Error('no form token on the last page');
  return match[1];
}

export interface HttpPage {
  status: number;
  location: string | null;
  body: string;
}

/**
 * The same browser over fetch, for suites that run `lightbox serve` as a process: cookies kept
 * by hand (fetch keeps none), redirects not followed, so a test sees each 303 as a browser would.
 */
export class HttpBrowser {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  last = '';

  constructor(base: string) {
    this.base = base;
  }

  private async send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<HttpPage> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${this.base}${url}`, {
      method,
      redirect: 'manual',
      headers: { ...(cookie === '' ? {} : { cookie }), ...headers },
      ...(body === undefined ? {} : { body }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const expired = attributes.some((a) => {
        const [key = '', value = ''] = a.split('=');
        if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
        return key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now();
      });
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(name.length + 1));
    }
    this.last = await res.text();
    return { status: res.status, location: res.headers.get('location'), body: this.last };
  }

  get(url: string): Promise<HttpPage> {
    return this.send('GET', url, {});
  }

  /** Posts a form with the last page's token, from this server's own origin. */
  post(url: string, fields: Record<string, string>): Promise<HttpPage> {
    const body = new URLSearchParams({ _csrf: formToken(this.last), ...fields }).toString();
    return this.send(
      'POST',
      url,
      { 'content-type': 'application/x-www-form-urlencoded', origin: this.base, 'sec-fetch-site': 'same-origin' },
      body,
    );
  }

  async signIn(email: string, password: string): Promise<HttpPage> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}

/** The text of a page without its markup, white space collapsed: what a reader sees. */
export const textOf = (page: string): string =>
  page
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The value attribute of the input with this id, or undefined (no such input, or no value). */
export function inputValue(page: string, id: string): string | undefined {
  for (const match of page.matchAll(/<input\b[^>]*>/g)) {
    const tag = match[0];
    if (!new RegExp(`\\sid="${id}"`).test(tag)) continue;
    const value = /\svalue="([^"]*)"/.exec(tag)?.[1];
    return value
      ?.replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  }
  return undefined;
}
