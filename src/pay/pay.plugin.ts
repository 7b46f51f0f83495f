// An invoice's pay link at /pay/<token> (docs/api.md §29): a public scope as the client gallery's
// (src/public/public-scope.ts): no key, no cookie, the signed token is the capability, the same
// private headers and per-address rate limit. GET shows the invoice's amount due and one button;
// the button's POST starts Stripe Checkout (a 303 to Stripe's page) or, for a test-mode invoice,
// records the card payment at once. A GET changes nothing, so a mail scanner opening the link
// starts no payment.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { App } from '../http/types.ts';
import type { Services } from '../services.ts';
import { publicHeaders } from '../public/headers.ts';
import {
  HIDDEN,
  publicUnroutable,
  registerPublicScope,
  type PublicScope,
  type TokenParams,
} from '../public/public-scope.ts';
import { payErrorPage, payPage } from './views/page.ts';

const base = publicHeaders({ formAction: "'self'", cacheControl: 'private, no-store', indexable: false });
/** The button's answer is a redirect to Stripe's Checkout page: the form may lead there. */
const PAY_HEADERS = {
  ...base,
  'content-security-policy': (base['content-security-policy'] ?? '').replace(
    "form-action 'self'",
    "form-action 'self' https://checkout.stripe.com",
  ),
};

const PAY_SCOPE: PublicScope = {
  failure: 'pay request failed',
  headers: PAY_HEADERS,
  sendError: (request, reply, status) =>
    reply
      .code(status)
      .headers(PAY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(payErrorPage(status, request.id).toString()),
};

/** A URL under /pay that the router could not read: the 404 page, charged like any pay request. */
export const payUnroutable = (
  limiter: Pick<RateLimiter, 'chargeGallery'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> => publicUnroutable(limiter, PAY_SCOPE, request, reply);

const gone = (): AppError => new AppError('not_found', 'This page is not available');

export function registerPay(scope: App, { services, limiter }: { services: Services; limiter: RateLimiter }): void {
  registerPublicScope(scope, limiter, PAY_SCOPE);
  // The button's form has no field: its body is read and dropped.
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, _body, done) => done(null, {}),
  );

  scope.get<{ Params: TokenParams }>('/:token', { schema: HIDDEN }, async (request, reply) => {
    const page = await services.stripe.payPage(request.params.token);
    if (page === undefined) throw gone();
    const justPaid = (request.query as { paid?: unknown } | undefined)?.paid === '1';
    return reply.type('text/html; charset=utf-8').send(payPage(page, { justPaid }).toString());
  });

  scope.get<{ Params: TokenParams }>('/:token/invoice.pdf', { schema: HIDDEN }, async (request, reply) => {
    const page = await services.stripe.payPage(request.params.token);
    if (page === undefined) throw gone();
    const { number, bytes } = await services.stripe.invoicePdf(request.params.token);
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${number ?? 'invoice'}.pdf"`)
      .send(bytes);
  });

  scope.post<{ Params: TokenParams }>('/:token', { schema: HIDDEN }, async (request, reply) => {
    const { token } = request.params;
    let outcome;
    try {
      outcome = await services.stripe.startPayment(token);
    } catch (err) {
      // Paid or voided meanwhile: the page says so.
      if (err instanceof AppError && err.code === 'conflict') return reply.redirect(`/pay/${token}`, 303);
      request.log.warn({ err }, 'a Stripe Checkout session could not be made');
      const page = await services.stripe.payPage(token);
      if (page === undefined) throw gone();
      const failed = 'Online payment is not available right now. Please try again in a moment.';
      return reply
        .code(502)
        .type('text/html; charset=utf-8')
        .send(payPage(page, { justPaid: false, failed }).toString());
    }
    if (outcome === undefined) throw gone();
    if ('redirect' in outcome) return reply.redirect(outcome.redirect, 303);
    return reply.redirect(`/pay/${token}?paid=1`, 303);
  });
}
