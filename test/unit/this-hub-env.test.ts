/**
 * Adding a server that is a bridge to another Spillway, or to the usual Spillway from a hub on another
 * data folder, is not refused as "Spillway itself"; this hub's own address spelled 0.0.0.0 is refused.
 */
import { expect, it } from 'vitest';
import { isThisHub } from '../../electron/core/clients/entry-owner.js';
import { refuseThisHub } from '../../electron/core/control/server-validation.js';

const hub = { url: 'http://127.0.0.1:47821/mcp', dataDir: '/home/u/.config/Spillway', platform: 'linux' as const, bridgeCommand: '/usr/bin/node' };

it('a bridge to another profile named by SPILLWAY_DATA_DIR is not this hub', () => {
  const cfg = { type: 'stdio', command: 'spillway', args: ['bridge'], env: { SPILLWAY_DATA_DIR: '/home/u/work-spillway' } } as never;
  expect(() => refuseThisHub(cfg, hub)).not.toThrow();
});

it('a hub on another data folder (--data-dir) may add a bridge to the usual Spillway (no --data-dir)', () => {
  const other = { ...hub, dataDir: '/home/u/work-spillway' };
  const cfg = { type: 'stdio', command: 'spillway', args: ['bridge'] } as never;
  expect(() => refuseThisHub(cfg, other)).not.toThrow();
});

it('a bridge whose SPILLWAY_DATA_DIR is this data folder is refused', () => {
  const cfg = { type: 'stdio', command: 'spillway', args: ['bridge'], env: { SPILLWAY_DATA_DIR: hub.dataDir } } as never;
  expect(() => refuseThisHub(cfg, hub)).toThrow(/Spillway itself/);
});

it('its own address spelled 0.0.0.0 (reaches a 127.0.0.1 listener on Linux) is this hub', () => {
  expect(isThisHub({ url: 'http://0.0.0.0:47821/mcp' }, hub)).toBe(true);
  expect(() => refuseThisHub({ type: 'http', url: 'http://0.0.0.0:47821/mcp' } as never, hub)).toThrow(/Spillway itself/);
});
