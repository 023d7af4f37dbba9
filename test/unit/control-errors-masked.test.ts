/**
 * Error messages of the control API may quote what a server or the SDK said (an address with its key in
 * it): the dispatcher masks configured secret values in them, as the events do.
 */
import { describe, expect, it } from 'vitest';
import { ControlDispatcher, type HandlerMap } from '../../electron/core/control/control-handlers.js';
import { ControlError } from '../../electron/core/control/control-error.js';

const KEY = 'sk-live-0123456789abcdef';
const mask = (text: string) => text.split(KEY).join('***');

describe('control API errors', () => {
  it('mask configured secret values in an error message, whatever threw it', async () => {
    const handlers: HandlerMap = {
      'upstreams.signIn': () => {
        throw new ControlError(
          'unavailable',
          `Signing in could not start: Protected resource https://mcp.example.com/mcp?api_key=${KEY} does not match`,
        );
      },
      'upstreams.signOut': () => {
        throw new Error(`fetch failed for https://mcp.example.com/mcp?api_key=${KEY}`);
      },
    };
    const dispatcher = new ControlDispatcher(handlers, mask);
    const signIn = await dispatcher.dispatch('upstreams.signIn', { id: 'remote' });
    expect(signIn).toMatchObject({ ok: false, code: 'unavailable' });
    expect(JSON.stringify(signIn)).not.toContain(KEY);
    expect(JSON.stringify(signIn)).toContain('api_key=***');
    const signOut = await dispatcher.dispatch('upstreams.signOut', { id: 'remote' });
    expect(signOut.ok).toBe(false);
    expect(JSON.stringify(signOut)).not.toContain(KEY);
  });
});
