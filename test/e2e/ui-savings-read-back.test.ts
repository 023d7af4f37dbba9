/**
 * Savings open while the model reads back a kept result, in real Chromium over a real hub: the read is
 * answered by the hub itself (no call.finished), and Savings still shows it without a Refresh.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { openSection } from '../support/browser.js';
import { spillOneCall } from '../support/ui-hub.js';
import { startUiInChromium, type UiInChromium } from '../support/ui-in-chromium.js';

let s: UiInChromium;
beforeAll(async () => {
  s = await startUiInChromium();
});
afterAll(() => s?.close());

it('Savings counts a read-back while it is open: one call more, less saved', async () => {
  const client = await spillOneCall(s.hub);
  const { page } = await s.open();
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await openSection(page, 'Savings');
  const allTime = page.getByRole('region', { name: 'All time' });
  await allTime.getByText('· 1 call').waitFor();
  const savedBefore = (await s.hub.api<{ allTime: { tokensSaved: number } }>('savings.report', {})).value!.allTime.tokensSaved;

  const events = (await s.hub.api<HubEvent[]>('events.query', { types: ['call.finished'] })).value!;
  const spilled = events.find((e) => e.type === 'call.finished' && e.handle !== undefined);
  const handle = spilled?.type === 'call.finished' ? spilled.handle : undefined;
  expect(handle).toBeTruthy();
  await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head', lines: 400 } });

  // No Refresh pressed: the read-back's event brings the new report.
  await allTime.getByText('· 2 calls').waitFor({ timeout: 10_000 });
  const report = (await s.hub.api<{ allTime: { tokensSaved: number; calls: number } }>('savings.report', {})).value!;
  expect(report.allTime.calls).toBe(2);
  expect(report.allTime.tokensSaved).toBeLessThan(savedBefore);
});
