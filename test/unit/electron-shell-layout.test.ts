/**
 * The shell's shape: only three thin files touch Electron, the preload loads nothing but 'electron', and
 * the icons on disk are the ones the art in build/icon-art.ts draws (and the tray asks for).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodePng, encodePng, ICON_FILES, renderIcon } from '../../build/icon-art.js';
import { trayIconFile, type TrayIconState } from '../../electron/main/tray-menu.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  return [...text.matchAll(re)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
}

/** The Electron glue: everything else in electron/main is plain Node and tested as such. */
const GLUE = new Set(['main.ts', 'main-window.ts', 'system-tray.ts', 'lifecycle-events.ts', 'login-item-apply.ts']);

describe('shell layout', () => {
  const mainDir = join(root, 'electron/main');
  const files = readdirSync(mainDir).filter((f) => f.endsWith('.ts'));

  it('only the glue files import electron or electron-store (not even for types)', () => {
    const offenders = files
      .filter((f) => !GLUE.has(f))
      .flatMap((f) =>
        importsOf(join(mainDir, f))
          .filter((s) => s === 'electron' || s.startsWith('electron-store') || s.startsWith('electron/'))
          .map((s) => `${f} -> ${s}`),
      );
    expect(offenders).toEqual([]);
    expect(files.filter((f) => GLUE.has(f)).sort()).toEqual([...GLUE].sort());
  });

  it('the glue files stay thin', () => {
    for (const f of GLUE) {
      const lines = readFileSync(join(mainDir, f), 'utf8').split('\n').length;
      expect(lines, f).toBeLessThan(260);
    }
  });

  it('the preload imports electron only (a sandboxed preload can load nothing else)', () => {
    expect([...new Set(importsOf(join(root, 'electron/preload/preload.cts')))]).toEqual(['electron']);
  });

  it('the main process never loads the renderer or the CLI', () => {
    for (const f of files) {
      for (const spec of importsOf(join(mainDir, f))) {
        expect(spec, f).not.toMatch(/renderer\/|\/cli\//);
      }
    }
  });
});

describe('icons', () => {
  it.each(ICON_FILES.map((i) => [i.file, i] as const))('%s is what the art draws', (_file, icon) => {
    const png = readFileSync(join(root, icon.file));
    const decoded = decodePng(png);
    expect([decoded.width, decoded.height]).toEqual([icon.size, icon.size]);
    expect(
      Buffer.from(decoded.rgba).equals(Buffer.from(renderIcon(icon.variant, icon.size))),
      `${icon.file} is stale: run npx tsx build/make-icons.ts`,
    ).toBe(true);
  });

  it('the PNG encoder and decoder agree', () => {
    const rgba = new Uint8Array([255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 1, 2, 3, 4]);
    expect(decodePng(encodePng(rgba, 2, 2))).toEqual({ width: 2, height: 2, rgba });
  });

  it('template images are black with alpha only (macOS tints them)', () => {
    for (const icon of ICON_FILES.filter((i) => i.variant.startsWith('template'))) {
      const { rgba } = decodePng(readFileSync(join(root, icon.file)));
      let opaque = 0;
      for (let i = 0; i < rgba.length; i += 4) {
        if (rgba[i + 3] > 0) expect([rgba[i], rgba[i + 1], rgba[i + 2]], icon.file).toEqual([0, 0, 0]);
        if (rgba[i + 3] === 255) opaque++;
      }
      expect(opaque, icon.file).toBeGreaterThan(icon.size);
    }
  });

  it('every tray icon the shell asks for exists, with its @2x sibling', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      for (const state of ['normal', 'paused', 'error'] as TrayIconState[]) {
        const file = join(root, 'electron/assets', trayIconFile(platform, state));
        expect(existsSync(file), file).toBe(true);
        expect(existsSync(file.replace(/\.png$/, '@2x.png')), file).toBe(true);
      }
    }
    expect(existsSync(join(root, 'electron/assets/icon.png'))).toBe(true);
  });
});
