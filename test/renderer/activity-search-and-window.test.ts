/** Activity: text search over what a row shows and its call's arguments; Escape on a row; saying the log holds only the latest. */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import ActivityView from '../../renderer/src/views/ActivityView.svelte';
import { ActivityLog, type ActivityOptions } from '../../renderer/src/lib/activity.svelte.js';
import { SpillPreviewState } from '../../renderer/src/lib/spill-preview.svelte.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function setup(options: ActivityOptions = {}, seed?: (fake: FakeBackend) => void) {
  const fake = new FakeBackend();
  seed?.(fake);
  const log = new ActivityLog(fake, { schedule: (flush) => queueMicrotask(flush), ...options });
  stop = log.start();
  render(ActivityView, { log, spill: new SpillPreviewState(fake), testHeight: 600 });
  await waitFor(() => expect(log.loading).toBe(false));
  return { fake, log };
}

const logRegion = () => within(screen.getByRole('region', { name: 'Live log' }));

function call(fake: FakeBackend, callId: string, tool: string, args: string) {
  fake.emit({ type: 'call.started', level: 'info', callId, server: 'fx', tool, exposedName: `fx__${tool}`, argumentsPreview: args });
  fake.emit({
    type: 'call.finished',
    level: 'info',
    callId,
    server: 'fx',
    tool,
    exposedName: `fx__${tool}`,
    durationMs: 8,
    isError: false,
    action: 'pass',
    bytesUpstream: 10,
    bytesDelivered: 10,
  });
}

it('finds a finished call by its arguments and by the words its row shows', async () => {
  const { fake } = await setup();
  call(fake, 'c1', 'set_description', '{"text":"zebra-quokka"}');
  call(fake, 'c2', 'add', '{"a":1,"b":2}');
  await logRegion().findByText(/fx__add passed/);
  const search = screen.getByLabelText('Text');

  await fireEvent.input(search, { target: { value: 'Zebra-Quokka' } });
  await waitFor(() => expect(logRegion().queryByText(/fx__add passed/)).toBeNull());
  expect(logRegion().getByText(/fx__set_description passed/)).toBeTruthy();
  expect(screen.getByText('1 of 2 events')).toBeTruthy();

  await fireEvent.input(search, { target: { value: 'passed' } });
  await logRegion().findByText(/fx__add passed/);
  expect(logRegion().getByText(/fx__set_description passed/)).toBeTruthy();
});

it('closes the details with Escape on the row they were opened from', async () => {
  const { fake } = await setup();
  call(fake, 'c1', 'add', '{"a":1,"b":2}');
  const row = (await logRegion().findByText(/fx__add passed/)).closest('button')!;
  row.focus();
  await fireEvent.click(row);
  expect(screen.getByRole('region', { name: 'fx__add' })).toBeTruthy();
  await fireEvent.keyDown(document.activeElement ?? row, { key: 'Escape' });
  await waitFor(() => expect(screen.queryByRole('region', { name: 'fx__add' })).toBeNull());
});

it('says it shows only the latest events once earlier ones are dropped from the window', async () => {
  const { fake } = await setup({ capacity: 4 });
  for (let i = 0; i < 4; i++) fake.emit({ type: 'log', level: 'info', message: `line ${i}` });
  await logRegion().findByText('line 3');
  expect(screen.getByText('4 events')).toBeTruthy();
  fake.emit({ type: 'log', level: 'info', message: 'line 4' });
  expect(await screen.findByText('Showing the latest 4 events; earlier ones are no longer shown here')).toBeTruthy();
  await fireEvent.input(screen.getByLabelText('Text'), { target: { value: 'line 4' } });
  expect(await screen.findByText('1 of the latest 4 events')).toBeTruthy();
});

it('says it shows only the latest events when the history it loaded was cut at its limit', async () => {
  await setup({ initial: 2 }, (fake) => {
    for (let i = 0; i < 3; i++) fake.emit({ type: 'log', level: 'info', message: `line ${i}` });
  });
  expect(await screen.findByText('Showing the latest 2 events; earlier ones are no longer shown here')).toBeTruthy();
});
