// Test mode (docs/api.md §20): a live key calls every id-bearing /v1 route with its studio's test
// ids, and is answered 404 with nothing changed (tenant-isolation.test.ts, with A the test mode).
process.env.LIGHTBOX_ISOLATION_PAIR = 'live-key-on-test';
await import('./tenant-isolation.test.ts');
