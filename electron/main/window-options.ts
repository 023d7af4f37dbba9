/**
 * The main window's options and the production Content-Security-Policy, as plain data. Pure (no
 * 'electron' import); main-window.ts passes the result to `new BrowserWindow`, where TypeScript checks it
 * against Electron's own BrowserWindowConstructorOptions.
 */

/** The renderer's page background (renderer/src/app.css `--bg`), so the window never flashes white. */
export const WINDOW_BACKGROUND = { light: '#f7f7f8', dark: '#17181b' } as const;

export const MIN_WINDOW_SIZE = { width: 800, height: 600 } as const;
export const DEFAULT_WINDOW_SIZE = { width: 1100, height: 760 } as const;

/**
 * The production policy: scripts, styles and connections only from the app itself; no eval, no inline
 * script or style, no plugins, frames, forms or base rewriting. The built index.html carries the same
 * policy in its meta tag (a file:// page gets no response headers); a test keeps the two equal.
 */
export const PRODUCTION_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/** Splits a policy into directive → sources, to compare policies regardless of order and spacing. */
export function parseCsp(policy: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

/** What a policy must never allow in production: eval and inline script (and inline style, per the issue). */
export function cspWeaknesses(policy: string): string[] {
  const csp = parseCsp(policy);
  const weak: string[] = [];
  const scriptSources = csp.get('script-src') ?? csp.get('default-src') ?? ['*'];
  const styleSources = csp.get('style-src') ?? csp.get('default-src') ?? ['*'];
  for (const s of scriptSources) {
    if (s === "'unsafe-eval'" || s === "'unsafe-inline'" || s === "'wasm-unsafe-eval'" || s === '*' || s === 'data:') weak.push(`script-src ${s}`);
  }
  for (const s of styleSources) if (s === "'unsafe-inline'") weak.push(`style-src ${s}`);
  if (!csp.has('object-src') && csp.get('default-src')?.[0] !== "'none'") weak.push('object-src not restricted');
  return weak;
}

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export interface MainWindowInput {
  /** Absolute path of the compiled preload (preload.cjs). */
  preloadPath: string;
  /** The bridge argument from ipc-binding.ts (channels and method list for the preload). */
  bridgeArgument: string;
  dark: boolean;
  bounds: WindowBounds;
  /** Window icon (Linux; macOS and Windows take the app's icon). */
  iconPath?: string;
  /** DevTools are off in the packaged app. */
  devTools: boolean;
}

/** Options for the main window, hardened as Electron's security checklist asks. */
export function mainWindowOptions(input: MainWindowInput) {
  return {
    ...input.bounds,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'Spillway',
    // Shown on 'ready-to-show', so the first paint is the app and not an empty frame.
    show: false,
    backgroundColor: input.dark ? WINDOW_BACKGROUND.dark : WINDOW_BACKGROUND.light,
    autoHideMenuBar: true,
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    webPreferences: {
      preload: input.preloadPath,
      additionalArguments: [input.bridgeArgument],
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: true,
      devTools: input.devTools,
    },
  };
}
