/**
 * Writes every icon (build/icon.png for packaging, electron/assets/* for the tray and window) from the one
 * description in icon-art.ts. Run after changing the art: `npx tsx build/make-icons.ts`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodePng, ICON_FILES, renderIcon } from './icon-art.js';

const root = fileURLToPath(new URL('..', import.meta.url));

for (const { file, variant, size } of ICON_FILES) {
  const target = join(root, file);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, encodePng(renderIcon(variant, size), size, size));
  console.log(`${file}  ${size}x${size}  ${variant}`);
}
