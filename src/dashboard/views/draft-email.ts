// Before a draft gallery is emailed to its client (assigning with the email, or Resend): a page that
// says what the client will meet and asks again. No JavaScript: the page repeats the form's own
// fields in hidden inputs, with `confirm_draft`, so the same route does the same thing once confirmed.
import { html, type SafeHtml } from '../../lib/html.ts';
import { csrfField, page, type Viewer } from './layout.ts';

/** The field a confirmed form carries. */
export const CONFIRM_DRAFT = 'confirm_draft';

/** The form asked for an email of a draft gallery, and has not been confirmed yet. */
export const draftEmailUnconfirmed = (status: string, notify: boolean, confirmed: string): boolean =>
  status === 'draft' && notify && confirmed !== '1';

/** The words every form that can email a draft shows beside its Email box. */
export const DRAFT_HINT =
  'This gallery is a draft: if the client is emailed now, you are asked to confirm first.' as const;

export interface DraftEmailOptions {
  viewer: Viewer;
  /** The gallery's address, as the client will see it. */
  address: string;
  clientName: string | null;
  /** Where the form posted, and posts again once confirmed. */
  action: string;
  /** The form's fields as sent (its token and any earlier confirmation are left out). */
  fields: Readonly<Record<string, string>>;
  /** The name of the field that asks for the email, when the action can also be done without it. */
  notifyField?: string;
  /** Where Cancel goes: the page the form was on. */
  back: string;
  section: 'galleries' | 'clients' | 'overview';
}

function hiddenFields(fields: Readonly<Record<string, string>>, leaveOut: string[]): SafeHtml[] {
  return Object.entries(fields)
    .filter(([name]) => name !== '_csrf' && name !== CONFIRM_DRAFT && !leaveOut.includes(name))
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`);
}

export function draftEmailPage(o: DraftEmailOptions): SafeHtml {
  const to = o.clientName === null ? 'the client' : o.clientName;
  return page({
    title: 'Email a draft gallery?',
    viewer: o.viewer,
    section: o.section,
    body: html`<h1>Email “${o.address}” while it is a draft?</h1>
      <section class="card" aria-labelledby="draft-warning-title">
        <div class="draft-warning" role="alert">
          <h2 id="draft-warning-title">This gallery is still a draft</h2>
          <p>
            ${to} gets an email with the gallery's link now, and sees the gallery as it is today: photos not uploaded
            yet are missing.
          </p>
        </div>
        <p>If it is finished, make it active first; otherwise send the email anyway, or go back.</p>
        <div class="actions">
          <form method="post" action="${o.action}" class="inline">
            ${csrfField(o.viewer.csrfToken)} ${hiddenFields(o.fields, [])}
            <input type="hidden" name="${CONFIRM_DRAFT}" value="1" />
            <button type="submit" class="button">Email ${to} anyway</button>
          </form>
          ${
            o.notifyField === undefined
              ? ''
              : html`<form method="post" action="${o.action}" class="inline">
                  ${csrfField(o.viewer.csrfToken)} ${hiddenFields(o.fields, [o.notifyField])}
                  <button type="submit" class="button button-secondary">Assign without an email</button>
                </form>`
          }
          <a class="button button-secondary" href="${o.back}">Cancel</a>
        </div>
      </section>`,
  });
}
