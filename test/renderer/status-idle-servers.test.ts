/** The status line after a restart: servers that start on first use (idle) are available, not "0 of N ready". */
import { afterEach, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import StatusLine from '../../renderer/src/components/StatusLine.svelte';
import { StatusState } from '../../renderer/src/lib/status.svelte.js';
import type { ServerConfig } from '../../shared/config.js';
import type { UpstreamStatus } from '../../shared/events.js';
import { FakeBackend } from './fake-backend.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

const cfg: ServerConfig = { type: 'stdio', command: 'files-server', args: [], env: {}, enabled: true, prefix: true };

async function footerWith(statuses: UpstreamStatus[]): Promise<string> {
  const fake = new FakeBackend();
  statuses.forEach((s, i) => (fake.seedServer(`s${i}`, cfg).status = s));
  const status = new StatusState(fake);
  stop = status.start();
  render(StatusLine, { status });
  const footer = screen.getByRole('contentinfo', { name: 'Status' });
  await within(footer).findByText(/server/);
  return footer.querySelector('.servers')?.textContent?.trim() ?? '';
}

it('one idle server: "1 server ready (starts on first use)", never "0 of 1 server ready"', async () => {
  expect(await footerWith(['idle'])).toBe('1 server ready (starts on first use)');
});

it('idle and ready servers together count as ready, saying how many start on first use', async () => {
  expect(await footerWith(['ready', 'idle', 'idle'])).toBe('3 servers ready (2 start on first use)');
});

it('a server still connecting is not counted, an idle one is', async () => {
  expect(await footerWith(['connecting', 'idle'])).toBe('1 of 2 servers ready (1 starts on first use)');
});
