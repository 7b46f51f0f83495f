// Test mode (docs/api.md §20): a test key calls every id-bearing /v1 route with its studio's live
// ids, and is answered 404 with nothing changed, exactly as another studio's key is
// (tenant-isolation.test.ts, run here with B the studio's test mode).
process.env.LIGHTBOX_ISOLATION_PAIR = 'test-key-on-live';
await import('./tenant-isolation.test.ts');
