// The README sends a newcomer to these guides, in this order (issue 37): its examples, commands and
// key variable are held to the same rules as the README's own, and their shell examples run.
export const GUIDES = [
  'docs/api-tour.md',
  'docs/uploads.md',
  'docs/email.md',
  'docs/webhooks.md',
  'docs/limits.md',
  'docs/configuration.md',
  'docs/cli.md',
  'docs/backups.md',
  'docs/dashboard.md',
  'docs/integrations.md',
  'docs/testing.md',
] as const;
