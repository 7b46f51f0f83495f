// tsc does not copy the icons: n8n reads them from beside each compiled node and credential.
import { copyFileSync, mkdirSync } from 'node:fs';

for (const dir of ['nodes/Lightbox', 'nodes/LightboxTrigger', 'credentials']) {
  mkdirSync(`dist/${dir}`, { recursive: true });
  for (const icon of ['lightbox.svg', 'lightbox.dark.svg']) copyFileSync(`${dir}/${icon}`, `dist/${dir}/${icon}`);
}
