/**
 * Settings → Tools clients see: "cache read-only tools" (settings.policy.cacheReadOnlyTools) and its time
 * (readOnlyCacheTtlSeconds), which the README presents as settings, have controls in the window. Seconds
 * that cannot be saved are said at the field, naming it, and not sent.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/svelte';
import { renderSettings } from './render-views.js';

const CHECK = 'Reuse the answers of tools that only read, instead of asking their server again';
const SECONDS = 'Reuse them for (seconds)';

async function setup() {
  const fake = renderSettings();
  const check = (await screen.findByLabelText(CHECK)) as HTMLInputElement;
  const seconds = screen.getByLabelText(SECONDS) as HTMLInputElement;
  return { fake, check, seconds };
}

describe('Settings: reuse the answers of read-only tools', () => {
  it('shows the saved switch and time, and saves each through policies.setDefaults', async () => {
    const { fake, check, seconds } = await setup();
    expect(check.checked).toBe(false);
    expect(seconds.value).toBe('300');
    // Off, the time has nothing to act on.
    expect(seconds.disabled).toBe(true);

    await fireEvent.click(check);
    await waitFor(() => expect(fake.policies.defaults.cacheReadOnlyTools).toBe(true));
    await waitFor(() => expect(seconds.disabled).toBe(false));
    expect(screen.getByRole('status').textContent).toBe('Saved');

    await fireEvent.change(seconds, { target: { value: '60' } });
    await waitFor(() => expect(fake.policies.defaults.readOnlyCacheTtlSeconds).toBe(60));
    expect(fake.callsOf('policies.setDefaults')).toEqual([{ cacheReadOnlyTools: true }, { readOnlyCacheTtlSeconds: 60 }]);
    expect(seconds.value).toBe('60');
  });

  it('says when answers are dropped, next to the controls', async () => {
    const { seconds } = await setup();
    const about = document.getElementById('settings-readonly-cache-about')!;
    expect(seconds.getAttribute('aria-describedby')).toContain(about.id);
    expect(about.textContent?.replace(/\s+/g, ' ')).toContain(
      "A server's kept answers are dropped as soon as one of its tools that may change something is called.",
    );
  });

  it('seconds that cannot be saved are said at the field, naming it, and not sent', async () => {
    const { fake, check, seconds } = await setup();
    await fireEvent.click(check);
    await waitFor(() => expect(seconds.disabled).toBe(false));
    for (const value of ['', '0', '1.5', '604801']) {
      await fireEvent.change(seconds, { target: { value } });
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toBe('“Reuse them for” takes whole seconds from 1 to 604800 (7 days). Nothing was saved: it stays 300 seconds.');
      expect(seconds.getAttribute('aria-describedby')?.split(' ')).toContain(alert.id);
      expect(seconds.getAttribute('aria-invalid')).toBe('true');
      expect(screen.queryByRole('status')).toBeNull();
    }
    expect(fake.callsOf('policies.setDefaults')).toEqual([{ cacheReadOnlyTools: true }]);

    await fireEvent.change(seconds, { target: { value: '604800' } });
    await waitFor(() => expect(fake.policies.defaults.readOnlyCacheTtlSeconds).toBe(604_800));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(seconds.getAttribute('aria-invalid')).toBe('false');
  });
});
