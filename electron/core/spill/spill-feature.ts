/**
 * Plugs the spill store and the token counter into the hub: the result shaper the call path runs,
 * Spillway's own read-back tool and `spillway://spill/<handle>` resources. They are handed over as plain
 * objects; the call path declares the interfaces it consumes (spill/ never imports it).
 */
import { join } from 'node:path';
import type { CallToolResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../../../shared/config.js';
import type { ResultEncoding } from '../../../shared/policy.js';
import { TokenCounter } from '../tokens/token-counter.js';
import { RAW_DIR_NAME, RawTexts } from './raw-texts.js';
import { READ_RESULT_TOOL } from './read-result-tool.js';
import { readResult } from './read-result.js';
import type { ShapePolicy } from './shape-decision.js';
import { shapeResult, type ShapeContext, type ShapeDeps, type ShapedResult } from './shape-result.js';
import { isSpillUri, readSpillResource, SpillResourceError } from './spill-resource.js';
import { SpillStore } from './spill-store.js';

const CLEANUP_INTERVAL_MS = 15 * 60_000;

export interface SpillFeatureOptions {
  spillDir: string;
  settings: () => Settings;
  now?: () => number;
  log: (message: string, error?: unknown) => void;
  /** The encoding a tool's spilled results are read back in (issue 18), whatever run made them; default the global setting. */
  encodingFor?: (server: string, tool: string) => ResultEncoding | undefined;
}

/** The shaper of the call path: pass, spill or truncate one result (see shapeResult). */
export interface SpillShaper {
  /** Synchronous when the result passes by its size alone. The store's TTL comes from the settings. */
  shape(result: CallToolResult, policy: Omit<ShapePolicy, 'ttlMs'>, ctx: ShapeContext): ShapedResult | Promise<ShapedResult>;
  /** Whether some long text of this result is still on disk (see spill/raw-texts.ts). */
  holdsSpooled(result: CallToolResult): boolean;
  /** The result with every such text read back; for the paths that use a result as it is. */
  materialize(result: CallToolResult): Promise<CallToolResult>;
}

/** spillway__read_result, in the shape of an own tool of the call path. */
export interface SpillReadTool {
  tool: Tool;
  call(args: Record<string, unknown>): Promise<CallToolResult>;
}

/** `spillway://spill/<handle>` resources, in the shape of the call path's own resources. */
export interface SpillResources {
  matches(uri: string): boolean;
  read(uri: string): Promise<ReadResourceResult>;
}

export interface SpillFeature {
  counter: TokenCounter;
  store: SpillStore;
  /** Where stdio upstreams stream multi-megabyte lines; their tool results are spilled from there. */
  rawTexts: RawTexts;
  shaper: SpillShaper;
  /** spillway__read_result, also what spillway__dispatch's read runs. */
  readTool: SpillReadTool;
  ownTools: SpillReadTool[];
  ownResources: SpillResources;
  close(): Promise<void>;
}

export async function createSpillFeature(options: SpillFeatureOptions): Promise<SpillFeature> {
  const now = options.now ?? Date.now;
  const settings = options.settings;
  const counter = new TokenCounter({ encoding: settings().tokenizer });
  const store = await SpillStore.open({
    dir: options.spillDir,
    now,
    counter,
    // Read at each put and cleanup, so a retention or quota changed in Settings applies without a restart.
    ttlMs: () => settings().spill.ttlHours * 3600_000,
    quotaBytes: () => settings().spill.quotaBytes,
    log: options.log,
  });
  const rawTexts = await RawTexts.open({
    dir: join(options.spillDir, RAW_DIR_NAME),
    now,
    counter,
    previewTokens: () => settings().spill.previewTokens,
    thresholdTokens: () => settings().spill.thresholdTokens ?? undefined,
  });
  const timer = setInterval(() => {
    void store.cleanup().catch((err) => options.log('spill cleanup failed', err));
  }, CLEANUP_INTERVAL_MS);
  timer.unref();

  const deps: ShapeDeps = { store, counter, now, rawTexts };
  const shaper: SpillShaper = {
    shape: (result, p, ctx) =>
      shapeResult(
        result,
        {
          action: p.action,
          thresholdTokens: p.thresholdTokens,
          previewTokens: p.previewTokens,
          ttlMs: settings().spill.ttlHours * 3600_000,
          ...(p.spillAlways ? { spillAlways: true } : {}),
          ...(p.spillAsked ? { spillAsked: true } : {}),
          ...(p.encoding ? { encoding: p.encoding } : {}),
        },
        ctx,
        deps,
      ),
    holdsSpooled: (result) => rawTexts.holds(result),
    materialize: (result) => rawTexts.materialize(result),
  };

  const readTool: SpillReadTool = {
    tool: READ_RESULT_TOOL as Tool,
    call: (args) =>
      readResult(store, counter, args, {
        // The policy of the tool that made the result (its server and tool are in the index entry).
        encodingFor: (entry) => options.encodingFor?.(entry.server, entry.tool) ?? settings().policy.encoding,
      }),
  };

  const ownResources: SpillResources = {
    matches: isSpillUri,
    async read(uri) {
      try {
        return await readSpillResource(store, uri);
      } catch (err) {
        if (err instanceof SpillResourceError) throw Object.assign(new Error(err.message), { code: -32002 });
        throw err;
      }
    },
  };

  return {
    counter,
    store,
    rawTexts,
    shaper,
    readTool,
    ownTools: [readTool],
    ownResources,
    async close() {
      clearInterval(timer);
      await rawTexts.close();
      await store.close?.();
      await counter.close();
    },
  };
}
