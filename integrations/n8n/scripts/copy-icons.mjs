// tsc does not copy the icon: n8n reads it from beside each compiled node and credential.
import { copyFileSync, mkdirSync } from 'node:fs';

for (const dir of ['dist/nodes/Lightbox', 'dist/nodes/LightboxTrigger', 'dist/credentials']) {
  mkdirSync(dir, { recursive: true });
  copyFileSync('nodes/lightbox.svg', `${dir}/lightbox.svg`);
}
