/**
 * Requests for the window (window-requests.ts): a second instance started by the login item (`--hidden`)
 * opens no window, any other one does; one that comes before there is a window (the hub still starts) is
 * kept until main.ts attaches the window. The second instances' argv as Windows and Linux hand it over.
 */
import { describe, expect, it, vi } from 'vitest';
import { WindowRequests } from '../../electron/main/window-requests.js';

const EXE = 'C:\\Program Files\\Spillway\\Spillway.exe';

describe('a second instance', () => {
  it.each([
    { launch: 'the login item (--hidden)', argv: [EXE, '--hidden'], opens: false },
    {
      launch: 'the XDG autostart entry (--hidden after other arguments)',
      argv: ['/opt/Spillway/spillway', '--no-sandbox', '--hidden'],
      opens: false,
    },
    { launch: 'the user (no arguments)', argv: [EXE], opens: true },
    { launch: 'the user, with a file argument', argv: [EXE, 'C:\\Users\\me\\notes.txt'], opens: true },
  ])('started by $launch, while the window is attached: opens it $opens', ({ argv, opens }) => {
    const requests = new WindowRequests();
    const show = vi.fn();
    expect(requests.attach(show)).toBe(false);
    requests.secondInstance(argv);
    expect(show).toHaveBeenCalledTimes(opens ? 1 : 0);
  });

  it.each([
    { launch: 'the login item (--hidden)', argv: [EXE, '--hidden'], opens: false },
    { launch: 'the user', argv: [EXE], opens: true },
  ])('started by $launch while the hub still starts: the window opens once attached $opens', ({ argv, opens }) => {
    const requests = new WindowRequests();
    requests.secondInstance(argv);
    const show = vi.fn();
    // main.ts shows the window itself when attach says it was asked for.
    expect(requests.attach(show)).toBe(opens);
    expect(show).not.toHaveBeenCalled();
  });
});

it('a hidden second instance does not undo an earlier request for the window', () => {
  const requests = new WindowRequests();
  requests.ask(); // macOS 'activate' during the start
  requests.secondInstance([EXE, '--hidden']);
  expect(requests.attach(vi.fn())).toBe(true);
});
