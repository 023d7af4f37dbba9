/**
 * A ClientsService as the hub runs it, on real files: the apps' config files under `home` (Linux paths),
 * backups and client tokens where the test says, and a hub at a fixed local address with no servers.
 */
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';
import { ClientsService } from '../../electron/core/clients/clients-service.js';
import { createClientRegistry } from '../../electron/core/clients/index.js';

export interface ClientsServiceFiles {
  home: string;
  dataDir: string;
  backupDir: string;
  tokensFile: string;
  /** Backups kept per app (the registry's default when absent). */
  keepBackups?: number;
}

export async function clientsServiceOn(files: ClientsServiceFiles): Promise<ClientsService> {
  const { home, dataDir, backupDir, tokensFile, keepBackups } = files;
  return new ClientsService({
    registry: createClientRegistry({
      os: { home, platform: 'linux', env: { HOME: home } },
      backupDir,
      ...(keepBackups !== undefined ? { keepBackups } : {}),
    }),
    tokens: await ClientTokens.open(tokensFile),
    host: {
      endpoint: () => ({ url: 'http://127.0.0.1:47821/mcp' }),
      upstreamConfigs: () => ({}),
      addUpstream: async () => ({ id: 'x' }),
      lastSeen: () => undefined,
    },
    bridge: { command: '/opt/Spillway/spillway', args: ['/opt/Spillway/spillway.js', 'bridge'] },
    dataDir,
    platform: 'linux',
  });
}
