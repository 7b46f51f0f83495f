// Resumable uploads (docs/api.md §16) on S3 storage, against a throwaway s3rver: parts go straight to
// the bucket, and the completed multipart upload is the media object.
import { startS3Server } from '../../../test/support/s3-server.ts';
import { describeTusCases } from '../../../test/support/tus-cases.ts';

describeTusCases('S3', async () => {
  const server = await startS3Server();
  return {
    env: (name) => ({ ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/${name}` }),
    stop: () => server.stop(),
  };
});
