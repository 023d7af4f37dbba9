/**
 * "Start at login" applied to the OS (Electron glue for login-item.ts's plans): from the tray, and at
 * start, where the stored setting is brought in step with what the OS says.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { app, dialog } from 'electron';
import { autostartEntryOn, loginItemFailure, reportedLoginItemOn, type LoginItemPlan } from './login-item.js';

/** Applies "start at login" for this OS; Linux writes or removes the XDG autostart entry. */
async function applyLoginItem(plan: LoginItemPlan): Promise<void> {
  if (plan.kind === 'electron') {
    app.setLoginItemSettings(plan.settings);
    return;
  }
  if (plan.content === null) {
    await rm(plan.path, { force: true });
    return;
  }
  await mkdir(dirname(plan.path), { recursive: true });
  await writeFile(plan.path, plan.content, { mode: 0o644 });
}

/** The tray's "Start at login": applied first, saved only once it took; a failure is told in a dialog. */
export async function changeLoginItem(on: boolean, plan: LoginItemPlan, save: (on: boolean) => void): Promise<void> {
  try {
    await applyLoginItem(plan);
  } catch (err) {
    void dialog.showMessageBox({ type: 'warning', title: 'Spillway', ...loginItemFailure(on, plan, err) });
    throw err;
  }
  save(on);
}

/** Whether the login item `plan` (the one that turns it on) describes is still there and on in the OS. */
async function loginItemStillOn(plan: LoginItemPlan, platform: NodeJS.Platform): Promise<boolean> {
  if (plan.kind === 'autostart-file') {
    try {
      return autostartEntryOn(await readFile(plan.path, 'utf8'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw err;
    }
  }
  // Windows lists the Run entries that start this executable; macOS asks about the app's own login item.
  const { path, args } = plan.settings;
  return reportedLoginItemOn(platform, app.getLoginItemSettings(platform === 'win32' ? { path, args } : undefined));
}

/**
 * At start, while the stored setting says on. The user may have turned the item off outside the app since
 * (GNOME Tweaks or KDE's Autostart settings, Task Manager's "Startup apps", System Settings → Login Items):
 * it then stays off, and the setting is stored as off to match (the tray shows it); a disabled autostart file
 * left behind is removed. An item still on is
 * written again, as the app may have moved since it was set (the item names this executable).
 */
export async function keepLoginItemInStep(
  plan: LoginItemPlan,
  platform: NodeJS.Platform,
  save: (on: boolean) => void,
  log: (message: string) => void,
): Promise<void> {
  if (await loginItemStillOn(plan, platform)) {
    await applyLoginItem(plan);
    return;
  }
  // A desktop's own startup settings (GNOME) turn it off by keeping the file with
  // X-GNOME-Autostart-enabled=false: with the setting off, nothing would ever remove it (uninstalling leaves it).
  if (plan.kind === 'autostart-file') {
    await rm(plan.path, { force: true }).catch((err: unknown) => log(`Could not remove the disabled ${plan.path}: ${(err as Error).message}`));
  }
  save(false);
  log('Start at login was turned off outside Spillway; the setting is now off too.');
}
