// The page frame and the form parts every page shares. No inline script or style anywhere: the
// Content-Security-Policy allows only the stylesheet, script and icon under /dashboard/assets/.
import { assetUrl } from '../assets.ts';
import { html, type Interpolation, type SafeHtml } from '../../lib/html.ts';

type Section =
  'overview' | 'galleries' | 'clients' | 'products' | 'invoices' | 'keys' | 'webhooks' | 'studio' | 'team' | 'you';

export interface Notice {
  kind: 'success' | 'info' | 'error';
  text: string;
}

export interface Viewer {
  studioName: string;
  /** The signed-in person's email. */
  email: string;
  csrfToken: string;
  /** docs/api.md §27: a member is not shown the owner's pages. */
  role: 'owner' | 'member';
  userId: string;
}

export interface PageOptions {
  title: string;
  /** Signed in: the navigation and the sign-out button are shown. */
  viewer?: Viewer | null;
  section?: Section;
  notice?: Notice | null;
  /** Scripts this page needs before dashboard.js (asset names). */
  scripts?: string[];
  body: SafeHtml;
}

export type FieldErrors = Partial<Record<string, string>>;

/** `owner`: shown to the studio's owner only (the routes answer a member 403). */
const NAV: { section: Section; href: string; label: string; owner?: true }[] = [
  { section: 'overview', href: '/dashboard', label: 'Overview' },
  { section: 'galleries', href: '/dashboard/galleries', label: 'Galleries' },
  { section: 'clients', href: '/dashboard/clients', label: 'Clients' },
  // Products are reached from Invoices (its page links them): the row must fit at 1280 px.
  { section: 'invoices', href: '/dashboard/invoices', label: 'Invoices', owner: true },
  { section: 'keys', href: '/dashboard/settings/api', label: 'API keys', owner: true },
  { section: 'webhooks', href: '/dashboard/settings/webhooks', label: 'Webhooks', owner: true },
  { section: 'team', href: '/dashboard/settings/team', label: 'Team', owner: true },
  { section: 'studio', href: '/dashboard/settings/studio', label: 'Studio settings', owner: true },
  { section: 'you', href: '/dashboard/account', label: 'Your sign-in' },
];

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}

function noticeBanner(notice: Notice | null | undefined): SafeHtml {
  if (notice === null || notice === undefined) return html``;
  // Errors interrupt (alert); confirmations are announced politely (status).
  const role = notice.kind === 'error' ? 'alert' : 'status';
  return html`<div class="notice notice-${notice.kind}" role="${role}">${notice.text}</div>`;
}

export function page(options: PageOptions): SafeHtml {
  const { viewer, section } = options;
  const header = viewer
    ? html`<header class="topbar">
        <div class="topbar-inner">
          <a class="brand" href="/dashboard">Lightbox</a>
          <nav class="main-nav" aria-label="Main">
            <ul class="nav">
              ${NAV.filter((item) => item.owner !== true || viewer.role === 'owner').map(
                (item) =>
                  html`<li>
                    <a href="${item.href}" ${item.section === section ? html` aria-current="page"` : ''}
                      >${item.label}</a
                    >
                  </li>`,
              )}
            </ul>
          </nav>
          <div class="who">
            <span class="who-name" title="${viewer.email}">${viewer.studioName}</span>
            <form method="post" action="/dashboard/sign-out" class="inline">
              ${csrfField(viewer.csrfToken)}
              <button type="submit" class="button button-quiet">Sign out</button>
            </form>
          </div>
        </div>
      </header>`
    : html`<header class="topbar">
        <div class="topbar-inner"><span class="brand">Lightbox</span></div>
      </header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · Lightbox</title>
<link rel="icon" href="${assetUrl('favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl('dashboard.css')}">
${(options.scripts ?? []).map(
  (name) => html`<script src="${assetUrl(name)}" defer></script> `,
)}<script src="${assetUrl('dashboard.js')}" defer></script>
</head>
<body${viewer ? '' : html` class="narrow"`}>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main" tabindex="-1">
${noticeBanner(options.notice)}
${options.body}
</main>
</body>
</html>
`;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'hidden';
  value?: string;
  hint?: Interpolation;
  error?: string | undefined;
  autocomplete?: string;
  required?: boolean;
  maxlength?: number;
  minlength?: number;
  autofocus?: boolean;
}

/** A labelled input with its hint and error tied to it for screen readers. */
export function field(o: FieldOptions): SafeHtml {
  const id = `f-${o.name}`;
  const described = [o.hint === undefined ? '' : `${id}-hint`, o.error === undefined ? '' : `${id}-error`]
    .filter((s) => s !== '')
    .join(' ');
  return html`<div class="field${o.error === undefined ? '' : ' field-invalid'}">
    <label for="${id}">${o.label}${o.required === false ? html` <span class="optional">(optional)</span>` : ''}</label>
    ${o.hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${o.hint}</p>`}
    ${o.error === undefined ? '' : html`<p class="field-error" id="${id}-error">${o.error}</p>`}
    <input
      id="${id}"
      name="${o.name}"
      type="${o.type ?? 'text'}"
      ${
        o.type === 'password' ? '' : html` value="${o.value ?? ''}"`
      }${o.autocomplete === undefined ? '' : html` autocomplete="${o.autocomplete}"`}${
        o.required === false ? '' : html` required`
      }${o.maxlength === undefined ? '' : html` maxlength="${o.maxlength}"`}${
        o.minlength === undefined ? '' : html` minlength="${o.minlength}"`
      }${described === '' ? '' : html` aria-describedby="${described}"`}${
        o.error === undefined ? '' : html` aria-invalid="true"`
      }${o.autofocus === true ? html` autofocus` : ''}
    />
  </div>`;
}

/** The list of what to fix, at the top of a refused form, each linking to its field. */
export function errorSummary(errors: FieldErrors, labels: Record<string, string>): SafeHtml {
  const entries = Object.entries(errors).filter((e): e is [string, string] => e[1] !== undefined);
  if (entries.length === 0) return html``;
  return html`<div class="notice notice-error" role="alert">
    <p class="notice-title">Please fix ${entries.length === 1 ? 'this' : 'these'} and try again:</p>
    <ul>
      ${entries.map(([name, message]) => html`<li><a href="#f-${name}">${labels[name] ?? name}: ${message}</a></li>`)}
    </ul>
  </div>`;
}
