// Resumable uploads (docs/api.md §16) on the local folder storage (DATA_DIR/media).
import { describeTusCases } from '../../../test/support/tus-cases.ts';

describeTusCases('local', () => Promise.resolve({ env: () => ({}), stop: () => Promise.resolve() }));
