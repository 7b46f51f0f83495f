// Upload round-trips and all-or-nothing uploads on the local folder storage (DATA_DIR/media).
import { describeStorageCases } from '../../../test/support/media-storage-cases.ts';

describeStorageCases('local', () => Promise.resolve({ env: () => ({}), stop: () => Promise.resolve() }));
