/**
 * A bundle with settings of its own (an MCPB manifest's user_config), as the registry tests add it: the
 * env-echo server (test/fixtures/env-echo-server.mjs) with a required secret `api_key` (no default)
 * passed as FIXTURE_KEY and a `limit` number (1 to 10, default 5) passed as FIXTURE_LIMIT; the server
 * prints both to stderr as it starts.
 */
import { buildFixtureBundle } from './mcpb-bundle.js';

/** Builds and packs the settings bundle named `name` under `work`; the .mcpb file's bytes. */
export function buildSettingsBundle(work: string, name: string): Promise<Buffer> {
  return buildFixtureBundle(work, {
    name,
    entry: 'env-echo-server.mjs',
    args: ['--echo', 'FIXTURE_KEY,FIXTURE_LIMIT'],
    env: { FIXTURE_KEY: '${user_config.api_key}', FIXTURE_LIMIT: '${user_config.limit}' },
    userConfig: {
      api_key: { type: 'string', title: 'API key', description: 'Your key for the service', required: true, sensitive: true },
      limit: { type: 'number', title: 'Limit', description: 'How many at most.', default: 5, min: 1, max: 10 },
    },
  });
}
