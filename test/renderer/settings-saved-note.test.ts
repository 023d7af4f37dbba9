/**
 * The brief "Saved" under a Settings control is one component with one style, wherever it shows: under
 * the spill threshold (SettingsView) and under the reuse of read-only answers (ReadOnlyCacheSettings).
 * Svelte scopes a style to the component that writes it, so one shared scope class means one style.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/svelte';
import { renderSettings } from './render-views.js';

describe('Settings: the Saved note', () => {
  it('is the same element with the same style under a setting and under the read-only answers', async () => {
    const fake = renderSettings();
    const slider = (await screen.findByLabelText('Threshold')) as HTMLInputElement;
    await fireEvent.change(slider, { target: { value: '6' } });
    await waitFor(() => expect(fake.settings.spill.thresholdTokens).toBe(50_000));
    await fireEvent.click(screen.getByLabelText('Reuse the answers of tools that only read, instead of asking their server again'));
    await waitFor(() => expect(fake.policies.defaults.cacheReadOnlyTools).toBe(true));

    const notes = await waitFor(() => {
      const saved = screen.getAllByRole('status').filter((note) => note.textContent === 'Saved');
      expect(saved).toHaveLength(2);
      return saved;
    });
    const [underSetting, underCache] = notes;
    expect(underSetting.tagName).toBe('P');
    expect(underSetting.classList).toContain('saved');
    // One scope class (svelte-<hash>): the style is written once, in the component both use.
    expect(underCache.className).toBe(underSetting.className);
  });
});
