/**
 * Codex: Spillway's entry written inline (`spillway = { ... }` under `[mcp_servers]`, or as dotted keys) is
 * edited in place like a table of its own. Disconnect used to write the whole config.toml anew for it, every
 * comment lost without a word, and its preview showed the entry as JSON (audit s17, connect item 2). Where
 * a rewrite is still needed (the servers table itself inline), the Disconnect preview warns as Connect's does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyConnect, applyDisconnect, CLIENT_DEFINITIONS, type SpillwayEntry } from '../../electron/core/clients/index.js';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

const codex = CLIENT_DEFINITIONS.codex;
const BRIDGE: SpillwayEntry = {
  kind: 'stdio',
  command: '/opt/Spillway/spillway',
  args: ['/opt/Spillway/resources/spillway.js', 'bridge', '--data-dir', '/home/u/.config/Spillway'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
};
const OLD = '{ command = "/usr/bin/node", args = ["/x/spillway.js", "bridge"] }';

describe('an inline Codex entry is edited in place', () => {
  // Title, the file, the file after Disconnect, how Connect spells the entry's key.
  const cases: [string, string, string, string][] = [
    [
      'under [mcp_servers]',
      `# my Codex settings\nmodel = "o3" # the good one\n\n[mcp_servers]\n# Spillway\nspillway = ${OLD}\nother = { command = "y" } # mine\n`,
      `# my Codex settings\nmodel = "o3" # the good one\n\n[mcp_servers]\n# Spillway\nother = { command = "y" } # mine\n`,
      'spillway = ',
    ],
    [
      'over several lines',
      `# c\n[mcp_servers]\nspillway = { command = "/usr/bin/node", args = [\n  "/x/spillway.js",\n  "bridge",\n] }\nother = { command = "y" }\n\n[profiles.x]\nmodel = "a" # keep\n`,
      `# c\n[mcp_servers]\nother = { command = "y" }\n\n[profiles.x]\nmodel = "a" # keep\n`,
      'spillway = ',
    ],
    [
      'as a dotted key at the top',
      `# c\nmcp_servers.spillway = ${OLD}\nmodel = "o3" # keep\n`,
      `# c\nmodel = "o3" # keep\n`,
      'mcp_servers.spillway = ',
    ],
    [
      'as dotted keys in [mcp_servers]',
      `# c\n[mcp_servers]\nspillway.command = "/usr/bin/node"\nspillway.args = ["bridge"]\nfoo.command = "x" # keep\n`,
      `# c\n[mcp_servers]\nfoo.command = "x" # keep\n`,
      'spillway = ',
    ],
  ];
  for (const [title, text, disconnected, key] of cases) {
    it(`${title}: disconnect removes only its lines, connect updates them, comments stay`, () => {
      expect(applyDisconnect(codex, text, 'config.toml')).toMatchObject({ text: disconnected, rewritten: false });
      const on = applyConnect(codex, text, 'config.toml', BRIDGE);
      expect(on.rewritten).toBe(false);
      expect(on.text).toContain(`\n${key}{ command = "/opt/Spillway/spillway", args = [ "/opt/Spillway/resources/spillway.js", "bridge"`);
      for (const line of text.split('\n').filter((l) => l.includes('#'))) expect(on.text).toContain(line);
    });
  }
});

describe('Codex Disconnect through the hub', () => {
  let home: string;
  let hub: TestHub;
  const file = () => join(home, '.codex', 'config.toml');
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'spillway-codex-inline-'));
    await mkdir(join(home, '.codex'), { recursive: true });
    hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() });
  });
  afterAll(async () => {
    await hub?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('keeps every comment, and the preview shows the entry as the TOML file has it', async () => {
    const before = `# my Codex settings\nmodel = "o3" # the good one\n\n[mcp_servers]\nspillway = ${OLD}\n`;
    await writeFile(file(), before);
    const preview = await hub.api<{ entryText: string }>('clients.previewDisconnect', { id: 'codex' });
    expect(preview.value?.entryText).toBe(`spillway = ${OLD}`);
    expect((await hub.api('clients.disconnect', { id: 'codex' })).ok).toBe(true);
    // It was 'model = "o3"\n\n[mcp_servers]\n': every comment gone.
    expect(await readFile(file(), 'utf8')).toBe('# my Codex settings\nmodel = "o3" # the good one\n\n[mcp_servers]\n');
  });

  it('where the file must be written anew, the preview says so, and shows TOML', async () => {
    await writeFile(file(), `# mine\nmcp_servers = { spillway = ${OLD}, foo = { command = "x" } }\n`);
    const preview = await (await hub.clients()).previewDisconnect('codex');
    expect(preview).toMatchObject({
      entryText: '[mcp_servers.spillway]\ncommand = "/usr/bin/node"\nargs = [ "/x/spillway.js", "bridge" ]',
      notes: [expect.stringMatching(/write the whole file anew: comments in it will be lost/)],
    });
  });
});
