// A 1 GiB resumable upload (docs/api.md §16) through a connection cut at random points, on the
// local folder and on S3 (a throwaway s3rver): the suite `npm run test:quick` leaves out.
import { startS3Server } from '../../../test/support/s3-server.ts';
import { describeLargeTusUpload } from '../../../test/support/tus-cases.ts';

describeLargeTusUpload('local', () => Promise.resolve({ env: () => ({}), stop: () => Promise.resolve() }));

describeLargeTusUpload('S3', async () => {
  const server = await startS3Server();
  return {
    env: (name) => ({ ...server.env, MEDIA_STORAGE: `s3://${server.bucket}/${name}` }),
    stop: () => server.stop(),
  };
});
