// Upload round-trips and all-or-nothing uploads on S3 storage, against a throwaway s3rver.
import { existsSync } from 'node:fs';
import { describeStorageCases } from '../../../test/support/media-storage-cases.ts';

const helper = new URL('../../../test/support/s3-server.ts', import.meta.url);

describeStorageCases('S3', async () => {
  if (!existsSync(helper)) return 'test/support/s3-server.ts (startS3Server) does not exist yet: S3 cases not run';
  const { startS3Server } = (await import(helper.href)) as typeof import('../../../test/support/s3-server.ts');
  const server = await startS3Server();
  return {
    // Each context gets its own prefix in the one bucket, so their objects are listed apart.
    env: (name) => ({ ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/${name}` }),
    stop: () => server.stop(),
  };
});
