/**
 * Start at login turned off in GNOME's own startup settings, which keep ~/.config/autostart/spillway.desktop
 * with X-GNOME-Autostart-enabled=false: at the next start Spillway stores the setting as off (the tray shows
 * it off) and removes the disabled file, so nothing of it is left when Spillway is uninstalled (the README's
 * step is "turn Start at login off", which there is then nothing left to do).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { autostartEntry, loginItemPlan } from '../../electron/main/login-item.js';
import { installElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

installElectronDouble({ paths: { home: tmpdir(), appData: tmpdir(), temp: tmpdir() }, appPath: ROOT });

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-login-off-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

async function startWith(entry: string | null) {
  const plan = loginItemPlan(true, { platform: 'linux', command: ['/opt/Spillway/spillway'], home, env: {} });
  if (plan.kind !== 'autostart-file') throw new Error('expected the autostart file on Linux');
  if (entry !== null) {
    await mkdir(dirname(plan.path), { recursive: true });
    await writeFile(plan.path, entry);
  }
  const saved: boolean[] = [];
  const logged: string[] = [];
  // Loaded once the double is installed (it imports electron).
  const { keepLoginItemInStep } = await import('../../electron/main/login-item-apply.js');
  await keepLoginItemInStep(
    plan,
    'linux',
    (on) => saved.push(on),
    (m) => logged.push(m),
  );
  return { file: plan.path, saved, logged };
}

it('removes the autostart file the desktop disabled, and stores the setting as off', async () => {
  const disabled = autostartEntry(['/opt/Spillway/spillway']).replace('X-GNOME-Autostart-enabled=true', 'X-GNOME-Autostart-enabled=false');
  const { file, saved, logged } = await startWith(disabled);
  expect(saved).toEqual([false]);
  expect(logged.join('\n')).toContain('turned off outside Spillway');
  expect(existsSync(file)).toBe(false);
});

it('keeps (writes again) an autostart file that is still on', async () => {
  const { file, saved } = await startWith(autostartEntry(['/opt/Spillway/spillway']));
  expect(saved).toEqual([]);
  expect(existsSync(file)).toBe(true);
});

it('stores off when the file was removed outside Spillway', async () => {
  const { file, saved } = await startWith(null);
  expect(saved).toEqual([false]);
  expect(existsSync(file)).toBe(false);
});
