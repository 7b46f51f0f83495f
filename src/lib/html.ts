// The only way pages (the dashboard, the client gallery) build HTML: a tagged template that escapes every interpolated
// value, unless it is already SafeHtml (another template's output). There is deliberately no way
// to insert a plain string unescaped.
import { escapeHtml } from '../lib/html-escape.ts';

export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** Interpolations allowed in html``: false, null and undefined render nothing (for `cond && html`). */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
