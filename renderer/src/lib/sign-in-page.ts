/** Opening a server's sign-in page from the browser UI (issue 15); the desktop app's main process opens it itself. */

/** The URL when it is a plain http(s) address (no credentials in it), else undefined: nothing else is ever opened. */
export function webAddress(candidate: string): string | undefined {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}

/** Opens a page in a new tab, with no way back to this window (the sign-in page is another site). */
export type OpenPage = (url: string) => void;

export const openInNewTab: OpenPage = (url) => {
  // A blocked popup returns null here too (noopener): the waiting line keeps a link to click either way.
  window.open(url, '_blank', 'noopener,noreferrer');
};

/** "mcp.example.com" for a server reached at https://mcp.example.com/mcp. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
