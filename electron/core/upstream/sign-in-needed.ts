/** How an upstream that needs an OAuth sign-in is recognised and described (issue 15). */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

/** The status message of a server that needs a sign-in: what the user does next. */
export const signInMessage = (serverId: string) => `sign-in needed: open Spillway's Servers view and press Sign in next to "${serverId}"`;

/**
 * Whether a connect or request failed because the server wants the user to sign in (the SDK's 401 path),
 * also when its sign-in cannot register Spillway by itself (then Sign in says which client ID to enter).
 */
export function isSignInNeeded(err: unknown): boolean {
  if (err instanceof UnauthorizedError) return true;
  return err instanceof Error && (err.name === 'UnauthorizedError' || /does not support dynamic client registration/.test(err.message));
}
