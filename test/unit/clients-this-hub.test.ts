/**
 * Which servers in an app's file are this hub itself, and so never imported or added as its upstream
 * (audit s17, connect item 3): its own address (any loopback spelling, a `?token=` added), or a bridge to
 * its data folder. A local server on another port, a bridge to another data folder, or another program run
 * with a `bridge` argument are not.
 */
import { describe, expect, it } from 'vitest';
import { isThisHub, type HubIdentity } from '../../electron/core/clients/entry-owner.js';

const hub: HubIdentity = {
  url: 'http://127.0.0.1:47821/mcp',
  dataDir: '/home/u/.config/Spillway',
  platform: 'linux',
  bridgeCommand: '/usr/bin/node',
  defaultDataDir: '/home/u/.config/Spillway',
};

const cases: [string, { command?: string; args?: string[]; env?: Record<string, string>; url?: string }, boolean][] = [
  ['its address', { url: 'http://127.0.0.1:47821/mcp' }, true],
  ['its address as localhost, with the key the Clients view hands out', { url: 'http://localhost:47821/mcp?token=abc' }, true],
  ['its address over IPv6 loopback, with a final slash', { url: 'http://[::1]:47821/mcp/' }, true],
  ['its address spelled 0.0.0.0', { url: 'http://0.0.0.0:47821/mcp' }, true],
  ['its address spelled [::]', { url: 'http://[::]:47821/mcp' }, true],
  ['a local server on another port (Figma)', { url: 'http://127.0.0.1:3845/mcp' }, false],
  ['another path on its port', { url: 'http://127.0.0.1:47821/sse' }, false],
  ['a remote server', { url: 'https://mcp.example.com:47821/mcp' }, false],
  [
    'a bridge to its data folder',
    { command: '/opt/Spillway/spillway', args: ['/opt/x/spillway.js', 'bridge', '--data-dir', '/home/u/.config/Spillway'] },
    true,
  ],
  [
    'a bridge to its data folder, spelled --data-dir=',
    { command: '/opt/Spillway/spillway', args: ['bridge', '--data-dir=/home/u/.config/Spillway/'] },
    true,
  ],
  ['a bridge to another data folder (another Spillway)', { command: '/opt/Spillway/spillway', args: ['bridge', '--data-dir', '/tmp/other'] }, false],
  ['`spillway bridge` (the usual data folder)', { command: 'spillway', args: ['bridge'] }, true],
  [
    '`spillway bridge` with SPILLWAY_DATA_DIR of another folder',
    { command: 'spillway', args: ['bridge'], env: { SPILLWAY_DATA_DIR: '/tmp/other' } },
    false,
  ],
  [
    '`spillway bridge` with SPILLWAY_DATA_DIR of its folder',
    { command: 'spillway', args: ['bridge'], env: { SPILLWAY_DATA_DIR: '/home/u/.config/Spillway' } },
    true,
  ],
  [
    '`spillway bridge --data-dir` of its folder, SPILLWAY_DATA_DIR of another (--data-dir wins)',
    { command: 'spillway', args: ['bridge', '--data-dir', '/home/u/.config/Spillway'], env: { SPILLWAY_DATA_DIR: '/tmp/other' } },
    true,
  ],
  ["node running Spillway's script as bridge", { command: '/usr/bin/node', args: ['/opt/s/electron/cli/spillway.js', 'bridge'] }, true],
  ['node running another program with a bridge argument', { command: '/usr/bin/node', args: ['/opt/other/server.js', 'bridge'] }, false],
  ['Spillway run as something else than the bridge', { command: 'spillway', args: ['serve', '--stdio'] }, false],
];

describe('this hub itself', () => {
  for (const [title, server, expected] of cases) {
    it(`${title}: ${expected ? 'is' : 'is not'} this hub`, () => {
      expect(isThisHub(server, hub)).toBe(expected);
    });
  }

  it('on another data folder, `spillway bridge` (the usual data folder) is not this hub', () => {
    expect(isThisHub({ command: 'spillway', args: ['bridge'] }, { ...hub, dataDir: '/home/u/work-spillway' })).toBe(false);
  });

  it("compares data folders as the platform's file system does", () => {
    const win: HubIdentity = { url: hub.url, dataDir: 'C:\\Users\\Jo\\AppData\\Roaming\\Spillway', platform: 'win32' };
    expect(
      isThisHub(
        { command: 'C:\\Program Files\\Spillway\\Spillway.exe', args: ['bridge', '--data-dir', 'c:\\users\\jo\\appdata\\roaming\\spillway'] },
        win,
      ),
    ).toBe(true);
  });
});
