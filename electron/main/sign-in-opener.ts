/**
 * Opening a sign-in page (issue 15) from the desktop app: when the window's `upstreams.signIn` call comes
 * back with an authorization URL, the main process hands that URL to the system browser itself. The URL
 * is the one the hub returned for that call, never one the page names, and only a plain http(s) address
 * is opened; anything else is refused in words. Pure (no 'electron' import), so it is tested in Node.
 */
import type { ApiResult } from '../../shared/api.js';
import { externalLink } from './navigation-guard.js';

export const SIGN_IN_METHOD = 'upstreams.signIn';

/** Opens a URL in the system browser (shell.openExternal). */
export type OpenExternal = (url: string) => Promise<void>;

function authorizationUrlOf(result: ApiResult<unknown>): string | undefined {
  if (!result.ok || result.value === null || typeof result.value !== 'object') return undefined;
  const url = (result.value as { authorizationUrl?: unknown }).authorizationUrl;
  return typeof url === 'string' ? url : undefined;
}

/**
 * After a dispatched call: for a successful `upstreams.signIn`, opens its authorization URL when it is
 * http(s) and says so in the answer (`openedInBrowser`); a URL of any other kind is refused, unopened.
 * Every other result passes through unchanged.
 */
export async function openSignInPage(
  method: string,
  result: ApiResult<unknown>,
  openExternal: OpenExternal,
  log?: (message: string) => void,
): Promise<ApiResult<unknown>> {
  if (method !== SIGN_IN_METHOD || !result.ok) return result;
  const url = authorizationUrlOf(result);
  const external = url === undefined ? undefined : externalLink(url);
  if (!external) {
    log?.(`Refused to open a sign-in address that is not a plain web address: ${String(url)}`);
    return {
      ok: false,
      code: 'invalid',
      message: 'The server gave a sign-in address that is not a web address (http or https), so Spillway did not open it.',
    };
  }
  try {
    await openExternal(external);
  } catch (err) {
    log?.(`Could not open the sign-in page: ${err instanceof Error ? err.message : String(err)}`);
    // The window then offers the link itself.
    return result;
  }
  return { ok: true, value: { ...(result.value as object), openedInBrowser: true } };
}
