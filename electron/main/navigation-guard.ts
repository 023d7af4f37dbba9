/**
 * Decisions for where the window may go: it never navigates away from the renderer page and never opens
 * another Electron window. A web link the user clicks opens in the default browser, and only http(s).
 * Pure (no 'electron' import) so the decisions are tested in Node; main-window.ts wires them to events.
 */

/** Where the trusted renderer page lives: the built index.html (file://), or the Vite dev server. */
export type RendererLocation =
  { kind: 'file'; url: string; /** Windows paths compare case-insensitively. */ caseInsensitive?: boolean } | { kind: 'dev'; url: string };

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

/** Whether `candidate` is the renderer page itself (any hash or query), i.e. our own code. */
export function isRendererUrl(location: RendererLocation, candidate: string | null | undefined): boolean {
  if (!candidate) return false;
  const url = parse(candidate);
  const home = parse(location.url);
  if (!url || !home) return false;
  if (location.kind === 'dev') return url.origin === home.origin && url.origin !== 'null';
  if (url.protocol !== 'file:' || url.host !== home.host) return false;
  const a = decodedPath(url);
  const b = decodedPath(home);
  return location.caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** The URL to hand to the OS browser, when it is a plain http(s) link (no credentials), else undefined. */
export function externalLink(candidate: string): string | undefined {
  const url = parse(candidate);
  if (!url) return undefined;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}

export interface NavigationAttempt {
  url: string;
  isMainFrame: boolean;
  /** URL of the frame that started the navigation (null when none, e.g. typed or dropped). */
  initiatorUrl: string | null | undefined;
}

export type NavigationDecision = { allow: true } | { allow: false; openExternal?: string };

/**
 * `will-navigate` / `will-frame-navigate`: a reload of the renderer page itself is allowed, everything else
 * is refused. A top-level http(s) link followed from our own page (a plain `<a href>` click) opens in the
 * browser instead. Electron reports no user-gesture flag for navigations; the initiator being our page —
 * which runs only our own code under the CSP — is the closest check available.
 */
export function decideNavigation(attempt: NavigationAttempt, location: RendererLocation): NavigationDecision {
  if (attempt.isMainFrame && isRendererUrl(location, attempt.url)) return { allow: true };
  const external = externalLink(attempt.url);
  if (external && attempt.isMainFrame && isRendererUrl(location, attempt.initiatorUrl)) {
    return { allow: false, openExternal: external };
  }
  return { allow: false };
}

/** Dispositions Chromium gives a clicked link: target=_blank, middle-click, shift/ctrl-click. */
const LINK_CLICK_DISPOSITIONS = new Set(['foreground-tab', 'background-tab', 'new-window']);

export interface WindowOpenAttempt {
  url: string;
  disposition: string;
  /** URL of the page asking for the window (the webContents' current URL). */
  openerUrl: string;
}

export interface WindowOpenDecision {
  action: 'deny';
  openExternal?: string;
}

/** `setWindowOpenHandler`: never a new Electron window; http(s) links clicked in our page go to the browser. */
export function decideWindowOpen(attempt: WindowOpenAttempt, location: RendererLocation): WindowOpenDecision {
  const external = externalLink(attempt.url);
  if (external && LINK_CLICK_DISPOSITIONS.has(attempt.disposition) && isRendererUrl(location, attempt.openerUrl)) {
    return { action: 'deny', openExternal: external };
  }
  return { action: 'deny' };
}
