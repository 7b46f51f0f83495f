// Table types of docs/api.md §29's online payment (Stripe), beside schema.ts.

/** A studio's Stripe keys, sealed (src/modules/accounts/sealing.ts), and its webhook URL's token. */
export interface StripeAccountsTable {
  account_id: string;
  /** PUBLIC_URL/stripe/webhooks/<token>; kept when online payment is turned off. */
  webhook_token: string;
  /** Sealed; null while online payment is off. */
  secret_key: string | null;
  webhook_secret: string | null;
  updated_at: string;
}

/** A Checkout session whose completion was handled: unique by session and by event. */
export interface StripeCheckoutsTable {
  session_id: string;
  event_id: string;
  account_id: string;
  invoice_id: string;
  /** The card payment recorded, or null when the invoice took none (paid or voided meanwhile). */
  payment_id: string | null;
  created_at: string;
}
