/**
 * Saving a settings change (HubControl.setSettings): the patch checked, the compression API key kept in
 * the store (put back when the save is refused), and what the new settings change at once.
 */
import { SettingsSchema, applySettingsPatch, describeZodError, type Settings, type SettingsPatch } from '../../../shared/config.js';
import { ControlError, storeCall } from './control-error.js';
import type { HubControlDeps } from './hub-control.js';

/**
 * Saves the settings `patch` makes of the current ones and applies them; run in the line of changes. The
 * limits that evict or delete (`applying`) run outside it: evicting many results must not hold the next change up.
 */
export async function saveSettings(deps: HubControlDeps, patch: SettingsPatch): Promise<{ settings: Settings; applying: Promise<void> }> {
  const config = deps.config();
  const parsed = SettingsSchema.safeParse(applySettingsPatch(config.settings, patch));
  if (!parsed.success) {
    const { field, message } = describeZodError(parsed.error, 'settings');
    throw new ControlError('invalid', message, field);
  }
  const keeper = deps.settingsSecrets;
  // The key as it is now (the stored value in place of its reference), to put back if the save is refused.
  const keyBefore = keeper?.view(config.settings).compression.apiKey;
  const settings = keeper ? await storeCall(() => keeper.keep(parsed.data, config.settings)) : parsed.data;
  try {
    await deps.saveConfig({ ...config, settings }, 'settings');
  } catch (err) {
    if (keeper && parsed.data.compression.apiKey !== config.settings.compression.apiKey) {
      const back = { ...config.settings, compression: { ...config.settings.compression, apiKey: keyBefore } };
      await keeper
        .keep(back, settings)
        .catch((e: Error) => deps.emit({ type: 'log', level: 'warn', message: `Could not put back the stored API key: ${e.message ?? e}` }));
    }
    throw err;
  }
  if (!settings.policy.pinning) deps.policy.pins.clearPending();
  // A result cached under the old read-only setting (on, for how long) would be served for its old time.
  const [was, now] = [config.settings.policy, settings.policy];
  if (was.cacheReadOnlyTools !== now.cacheReadOnlyTools || was.readOnlyCacheTtlSeconds !== now.readOnlyCacheTtlSeconds) deps.policy.cache.clear();
  deps.refreshCatalog();
  return { settings, applying: applyLimits(deps, config.settings, settings) };
}

/** A lower spill quota or retention, or a changed log retention, applies at once: what is over it goes now. */
async function applyLimits(deps: HubControlDeps, was: Settings, now: Settings): Promise<void> {
  const warn = (err: Error) =>
    deps.emit({ type: 'log', level: 'warn', message: `Could not remove kept results over the new limit: ${err.message ?? err}` });
  if (now.spill.quotaBytes < was.spill.quotaBytes || now.spill.ttlHours < was.spill.ttlHours) await deps.spill?.cleanup().catch(warn);
  if (now.logRetentionDays !== was.logRetentionDays) await deps.events?.setRetentionDays(now.logRetentionDays);
}
