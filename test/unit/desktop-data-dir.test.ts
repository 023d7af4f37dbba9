/** The desktop app's data folder from SPILLWAY_DATA_DIR is absolute: it is written into AI apps' bridge entries. */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { desktopDataDir } from '../../electron/main/shell-paths.js';

it('makes a relative SPILLWAY_DATA_DIR absolute from the current folder', () => {
  expect(desktopDataDir('/home/ada/.config', 'linux', { SPILLWAY_DATA_DIR: 'rel' })).toBe(join(process.cwd(), 'rel'));
});
