/** The control methods of upstream sign-in (issue 15): upstreams.signIn, cancelSignIn and signOut. */
import { SignInRefused, type HubSignIns } from '../hub/hub-sign-ins.js';
import { NoSignInOffered } from '../oauth/no-sign-in.js';
import { NeedsClientId } from '../oauth/oauth-sign-ins.js';
import { ControlError } from './control-error.js';
import type { HandlerMap } from './control-handlers.js';

/** A refused sign-in is the caller's mistake (unknown or stdio server); anything else means the server could not be reached or read. */
async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SignInRefused) throw new ControlError(/^No server/.test(err.message) ? 'not_found' : 'invalid', err.message, 'id');
    if (err instanceof ControlError) throw err;
    if (err instanceof NeedsClientId) throw new ControlError('invalid', err.message, 'oauthClientId');
    if (err instanceof NoSignInOffered) throw new ControlError('invalid', err.message);
    // The SDK words some refusals with the server's error description, which may be missing.
    const reason = (err instanceof Error ? err.message : String(err)).trim() || 'the server refused it without saying why';
    throw new ControlError('unavailable', `Signing in could not start: ${reason}`);
  }
}

export function signInHandlers(signIns: HubSignIns): HandlerMap {
  return {
    'upstreams.signIn': (req) => mapped(() => signIns.signIn(req.id)),
    'upstreams.cancelSignIn': (req) => mapped(() => signIns.cancelSignIn(req.id)),
    'upstreams.signOut': (req) => mapped(() => signIns.signOut(req.id)),
  };
}
