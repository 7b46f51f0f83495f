// Values that try to inject markup, break out of attributes or mangle text: every template that
// interpolates a field is checked with each (src/mail/templates.test.ts, assignment-email.test.ts).
export const NASTY = [
  '<script>alert(1)</script>',
  '<b>bold</b> & <i>italic</i>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  '&lt;already escaped&gt; &amp;',
  '</td></tr></table><a href="javascript:alert(1)">x</a>',
  '<!-- comment --> <![CDATA[x]]>',
  'Ünïcödé — 東京 😀',
];
