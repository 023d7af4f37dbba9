/**
 * The window's options, its Content-Security-Policy, where it opens, and where it may navigate — the
 * decisions main-window.ts hands to Electron, tested as data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decideNavigation, decideWindowOpen, externalLink, isRendererUrl, type RendererLocation } from '../../electron/main/navigation-guard.js';
import { restoreBounds, type Rect } from '../../electron/main/window-bounds.js';
import {
  cspWeaknesses,
  DEFAULT_WINDOW_SIZE,
  mainWindowOptions,
  MIN_WINDOW_SIZE,
  parseCsp,
  PRODUCTION_CSP,
  WINDOW_BACKGROUND,
} from '../../electron/main/window-options.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('window options', () => {
  const options = mainWindowOptions({
    preloadPath: '/app/dist/electron/preload/preload.cjs',
    bridgeArgument: '--spillway-bridge=x',
    dark: false,
    bounds: { width: 1000, height: 700 },
    devTools: false,
  });

  it('isolates the renderer: context isolation, sandbox, no Node, web security on', () => {
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
  });

  it('loads the compiled CommonJS preload and hands it the bridge argument', () => {
    expect(options.webPreferences.preload).toMatch(/preload\.cjs$/);
    expect(options.webPreferences.additionalArguments).toEqual(['--spillway-bridge=x']);
  });

  it('is usable from 800x600 up and waits for its first paint', () => {
    expect([options.minWidth, options.minHeight]).toEqual([800, 600]);
    expect(MIN_WINDOW_SIZE).toEqual({ width: 800, height: 600 });
    expect(options.show).toBe(false);
  });

  it('paints the renderer’s own background in light and dark', () => {
    expect(options.backgroundColor).toBe(WINDOW_BACKGROUND.light);
    expect(
      mainWindowOptions({ preloadPath: 'p', bridgeArgument: 'a', dark: true, bounds: DEFAULT_WINDOW_SIZE, devTools: true }).backgroundColor,
    ).toBe(WINDOW_BACKGROUND.dark);
    const css = readFileSync(join(root, 'renderer/src/app.css'), 'utf8');
    const bgs = [...css.matchAll(/--bg:\s*(#[0-9a-f]{6})/gi)].map((m) => m[1].toLowerCase());
    expect(bgs).toEqual([WINDOW_BACKGROUND.light, WINDOW_BACKGROUND.dark]);
  });
});

describe('content security policy', () => {
  it('allows no eval and no inline script or style', () => {
    expect(cspWeaknesses(PRODUCTION_CSP)).toEqual([]);
    const csp = parseCsp(PRODUCTION_CSP);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
  });

  it('the weakness check catches what it should', () => {
    expect(cspWeaknesses("default-src 'self'; script-src 'self' 'unsafe-eval'")).toContain("script-src 'unsafe-eval'");
    expect(cspWeaknesses("default-src 'self'; script-src 'self' 'unsafe-inline'")).toContain("script-src 'unsafe-inline'");
    expect(cspWeaknesses('default-src *')).toContain('script-src *');
    expect(cspWeaknesses("script-src 'self'; style-src 'unsafe-inline'")).toEqual(
      expect.arrayContaining(["style-src 'unsafe-inline'", 'object-src not restricted']),
    );
  });

  function metaPolicy(file: string): string {
    const html = readFileSync(file, 'utf8');
    const match = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html);
    if (!match) throw new Error(`no CSP meta tag in ${file}`);
    return match[1];
  }

  it('is the policy the renderer page carries (a file:// page gets no headers, so the meta tag is what applies)', () => {
    const files = [join(root, 'renderer/index.html'), join(root, 'dist/renderer/index.html')].filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(Object.fromEntries(parseCsp(metaPolicy(file))), file).toEqual(Object.fromEntries(parseCsp(PRODUCTION_CSP)));
    }
  });

  it('the built page loads no inline script', () => {
    const built = join(root, 'dist/renderer/index.html');
    if (!existsSync(built)) return;
    const html = readFileSync(built, 'utf8');
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      expect(m[1]).toMatch(/\bsrc=/);
      expect(m[2].trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });
});

describe('window bounds', () => {
  const primary: Rect = { x: 0, y: 25, width: 1440, height: 875 };
  const right: Rect = { x: 1440, y: 0, width: 1920, height: 1080 };

  it('centres the default size on the primary display the first time', () => {
    expect(restoreBounds(undefined, [primary])).toEqual({ x: 170, y: 83, width: 1100, height: 760 });
  });

  it('keeps saved bounds that are on a display', () => {
    expect(restoreBounds({ x: 1600, y: 100, width: 1200, height: 800 }, [primary, right])).toEqual({ x: 1600, y: 100, width: 1200, height: 800 });
  });

  it('recentres a window whose display is gone', () => {
    expect(restoreBounds({ x: 1600, y: 100, width: 1200, height: 800 }, [primary])).toEqual(restoreBounds(undefined, [primary]));
  });

  it('recentres when only a sliver of the title bar would be reachable', () => {
    expect(restoreBounds({ x: 1400, y: 100, width: 900, height: 700 }, [primary]).x).toBe(170);
  });

  it('never opens smaller than the minimum or above the top of the display', () => {
    expect(restoreBounds({ x: 10, y: 0, width: 300, height: 200 }, [primary])).toEqual({ x: 10, y: 25, width: 800, height: 600 });
  });

  it('moves a window narrowed to its display back onto it', () => {
    // Saved across a 1920-wide monitor on the left and 580 px onto the laptop; the left monitor is gone.
    const laptop: Rect = { x: 0, y: 0, width: 1366, height: 728 };
    expect(restoreBounds({ x: -1920, y: 100, width: 2500, height: 700 }, [laptop])).toEqual({ x: 0, y: 28, width: 1366, height: 700 });
    // One that still shows enough of its title bar stays where the user left it.
    expect(restoreBounds({ x: 1000, y: 0, width: 2000, height: 600 }, [laptop])).toEqual({ x: 1000, y: 0, width: 1366, height: 600 });
  });

  it('ignores garbage', () => {
    expect(restoreBounds({ x: Number.NaN, y: 0, width: 800, height: 600 }, [primary]).x).toBe(170);
    expect(restoreBounds(undefined, [])).toEqual(DEFAULT_WINDOW_SIZE);
  });

  it('fits a small screen', () => {
    expect(restoreBounds(undefined, [{ x: 0, y: 0, width: 1024, height: 700 }])).toEqual({ x: 0, y: 0, width: 1024, height: 700 });
  });
});

describe('navigation guard', () => {
  const index = pathToFileURL(join(root, 'dist', 'renderer', 'index.html')).href;
  const file: RendererLocation = { kind: 'file', url: index };
  const dev: RendererLocation = { kind: 'dev', url: 'http://localhost:5174/' };

  it('recognises the renderer page, with any hash, and nothing else', () => {
    expect(isRendererUrl(file, `${index}#/savings`)).toBe(true);
    expect(isRendererUrl(file, `${index}?x=1`)).toBe(true);
    expect(isRendererUrl(file, pathToFileURL(join(root, 'dist', 'renderer', 'other.html')).href)).toBe(false);
    expect(isRendererUrl(file, 'https://example.com/')).toBe(false);
    expect(isRendererUrl(file, 'not a url')).toBe(false);
    expect(isRendererUrl(file, null)).toBe(false);
    expect(isRendererUrl(dev, 'http://localhost:5174/src/main.ts')).toBe(true);
    expect(isRendererUrl(dev, 'http://127.0.0.1:5174/')).toBe(false);
  });

  it('compares Windows paths without case, and percent-encoding consistently', () => {
    const win: RendererLocation = {
      kind: 'file',
      url: 'file:///C:/Program%20Files/Spillway/resources/app.asar/dist/renderer/index.html',
      caseInsensitive: true,
    };
    expect(isRendererUrl(win, 'file:///c:/program files/spillway/resources/app.asar/dist/renderer/index.html#/')).toBe(true);
    expect(isRendererUrl({ ...win, caseInsensitive: false }, 'file:///c:/program%20files/Spillway/resources/app.asar/dist/renderer/index.html')).toBe(
      false,
    );
  });

  it('only plain http(s) links go to the browser', () => {
    expect(externalLink('https://modelcontextprotocol.io/docs')).toBe('https://modelcontextprotocol.io/docs');
    expect(externalLink('http://localhost:3000/')).toBe('http://localhost:3000/');
    for (const bad of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-settings:',
      'https://user:pw@example.com/',
      'data:text/html,x',
      '',
    ]) {
      expect(externalLink(bad), bad).toBeUndefined();
    }
  });

  it.each<[string, Parameters<typeof decideNavigation>[0], ReturnType<typeof decideNavigation>]>([
    ['reload of our page', { url: `${index}#/`, isMainFrame: true, initiatorUrl: index }, { allow: true }],
    [
      'a link our page follows',
      { url: 'https://github.com/x', isMainFrame: true, initiatorUrl: `${index}#/servers` },
      { allow: false, openExternal: 'https://github.com/x' },
    ],
    ['a link with no initiator (typed, dropped)', { url: 'https://github.com/x', isMainFrame: true, initiatorUrl: null }, { allow: false }],
    ['a subframe', { url: 'https://github.com/x', isMainFrame: false, initiatorUrl: index }, { allow: false }],
    ['a local file', { url: 'file:///etc/passwd', isMainFrame: true, initiatorUrl: index }, { allow: false }],
    ['a foreign initiator', { url: 'https://github.com/x', isMainFrame: true, initiatorUrl: 'https://evil.example/' }, { allow: false }],
  ])('navigation: %s', (_name, attempt, expected) => {
    expect(decideNavigation(attempt, file)).toEqual(expected);
  });

  it.each<[string, Parameters<typeof decideWindowOpen>[0], ReturnType<typeof decideWindowOpen>]>([
    [
      'target=_blank link',
      { url: 'https://example.com/', disposition: 'foreground-tab', openerUrl: index },
      { action: 'deny', openExternal: 'https://example.com/' },
    ],
    [
      'middle click',
      { url: 'https://example.com/', disposition: 'background-tab', openerUrl: index },
      { action: 'deny', openExternal: 'https://example.com/' },
    ],
    ['not a link click', { url: 'https://example.com/', disposition: 'other', openerUrl: index }, { action: 'deny' }],
    ['a file url', { url: 'file:///C:/Windows/System32/calc.exe', disposition: 'foreground-tab', openerUrl: index }, { action: 'deny' }],
    [
      'opened by another page',
      { url: 'https://example.com/', disposition: 'foreground-tab', openerUrl: 'https://evil.example/' },
      { action: 'deny' },
    ],
  ])('new window: %s', (_name, attempt, expected) => {
    expect(decideWindowOpen(attempt, file)).toEqual(expected);
  });
});
