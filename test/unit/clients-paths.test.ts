import { describe, expect, it } from 'vitest';
import { CLIENT_DEFINITIONS, CLIENT_IDS, type ClientId, type OsFacts } from '../../electron/core/clients/index.js';
import type { ListDir } from '../../electron/core/clients/os-paths.js';

const none: ListDir = async () => [];

async function files(id: ClientId, os: OsFacts, listDir: ListDir = none): Promise<string[]> {
  return (await CLIENT_DEFINITIONS[id].locate(os, listDir)).files;
}

const WIN: OsFacts = {
  home: 'C:\\Users\\Zoë',
  platform: 'win32',
  env: { USERPROFILE: 'C:\\Users\\Zoë', APPDATA: 'D:\\Roaming', LOCALAPPDATA: 'D:\\Local' },
};
const MAC: OsFacts = { home: '/Users/zoe', platform: 'darwin', env: { HOME: '/Users/zoe', XDG_CONFIG_HOME: '/ignored/on/mac' } };
const LINUX: OsFacts = { home: '/home/zoe', platform: 'linux', env: { HOME: '/home/zoe' } };
const LINUX_XDG: OsFacts = { ...LINUX, env: { ...LINUX.env, XDG_CONFIG_HOME: '/cfg' } };

describe('config paths per OS (platform and env injected)', () => {
  it('Windows', async () => {
    const expected: Record<ClientId, string[]> = {
      'claude-desktop': ['D:\\Roaming\\Claude\\claude_desktop_config.json'],
      'claude-code': ['C:\\Users\\Zoë\\.claude.json'],
      cursor: ['C:\\Users\\Zoë\\.cursor\\mcp.json'],
      vscode: ['D:\\Roaming\\Code\\User\\mcp.json'],
      windsurf: ['C:\\Users\\Zoë\\.codeium\\windsurf\\mcp_config.json'],
      cline: [
        'D:\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
        'C:\\Users\\Zoë\\.cline\\data\\settings\\cline_mcp_settings.json',
      ],
      zed: ['D:\\Roaming\\Zed\\settings.json'],
      'lm-studio': ['C:\\Users\\Zoë\\.lmstudio\\mcp.json'],
      'gemini-cli': ['C:\\Users\\Zoë\\.gemini\\settings.json'],
      codex: ['C:\\Users\\Zoë\\.codex\\config.toml'],
    };
    for (const id of CLIENT_IDS) expect(await files(id, WIN), id).toEqual(expected[id]);
  });

  it('Windows without APPDATA/LOCALAPPDATA falls back to the profile folder', async () => {
    const os: OsFacts = { ...WIN, env: {} };
    expect(await files('claude-desktop', os)).toEqual(['C:\\Users\\Zoë\\AppData\\Roaming\\Claude\\claude_desktop_config.json']);
    let listed = '';
    await files('claude-desktop', os, async (dir) => {
      listed = dir;
      return [];
    });
    expect(listed).toBe('C:\\Users\\Zoë\\AppData\\Local\\Packages');
  });

  it('Windows Microsoft Store install of Claude Desktop: only its virtualized file is used', async () => {
    const listDir: ListDir = async (dir) =>
      dir === 'D:\\Local\\Packages' ? ['Microsoft.WindowsTerminal_8wekyb3d8bbwe', 'Claude_pzs8sxrjxfjjc'] : [];
    const loc = await CLIENT_DEFINITIONS['claude-desktop'].locate(WIN, listDir);
    expect(loc.files).toEqual(['D:\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json']);
    expect(loc.installDirs).toEqual(['D:\\Local\\Packages\\Claude_pzs8sxrjxfjjc']);
  });

  it('macOS', async () => {
    expect(await files('claude-desktop', MAC)).toEqual(['/Users/zoe/Library/Application Support/Claude/claude_desktop_config.json']);
    expect(await files('vscode', MAC)).toEqual(['/Users/zoe/Library/Application Support/Code/User/mcp.json']);
    expect((await files('cline', MAC))[0]).toBe(
      '/Users/zoe/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    expect(await files('zed', MAC)).toEqual(['/Users/zoe/.config/zed/settings.json']);
    expect(await files('cursor', MAC)).toEqual(['/Users/zoe/.cursor/mcp.json']);
  });

  it('Linux, with and without XDG_CONFIG_HOME', async () => {
    expect(await files('claude-desktop', LINUX)).toEqual(['/home/zoe/.config/Claude/claude_desktop_config.json']);
    expect(await files('claude-desktop', LINUX_XDG)).toEqual(['/cfg/Claude/claude_desktop_config.json']);
    expect(await files('vscode', LINUX_XDG)).toEqual(['/cfg/Code/User/mcp.json']);
    expect(await files('zed', LINUX_XDG)).toEqual(['/cfg/zed/settings.json']);
    expect(await files('zed', { ...LINUX, env: { XDG_CONFIG_HOME: 'relative/ignored' } })).toEqual(['/home/zoe/.config/zed/settings.json']);
    expect(await files('claude-code', LINUX)).toEqual(['/home/zoe/.claude.json']);
    expect(await files('gemini-cli', LINUX)).toEqual(['/home/zoe/.gemini/settings.json']);
    expect(await files('windsurf', LINUX)).toEqual(['/home/zoe/.codeium/windsurf/mcp_config.json']);
    expect(await files('lm-studio', LINUX)).toEqual(['/home/zoe/.lmstudio/mcp.json']);
  });

  it('CODEX_HOME, CLAUDE_CONFIG_DIR and CLINE_DIR move those files', async () => {
    const os: OsFacts = { ...LINUX, env: { CODEX_HOME: '/x/codex', CLAUDE_CONFIG_DIR: '/x/claude', CLINE_DIR: '/x/cline' } };
    expect(await files('codex', os)).toEqual(['/x/codex/config.toml']);
    expect(await files('claude-code', os)).toEqual(['/x/claude/.claude.json']);
    expect((await files('cline', os))[1]).toBe('/x/cline/data/settings/cline_mcp_settings.json');
  });
});
