/** The servers table of Codex's config.toml, as the changes of servers-edit.ts need it. */
import { isRecord, type ClientDefinition } from './client-definition.js';
import { ConfigShapeError } from './config-errors.js';
import { assertServersChange, canonicalJson, internalEditError, type ParsedServers } from './servers-edit.js';
import { parseTomlObject, removeTomlTable, setTomlTable, tomlTableTextIn } from './toml-edit.js';
import { SPILLWAY_ENTRY_NAME } from './types.js';

/** The servers table of a parsed TOML document ({} when absent). A table that is not one → ConfigShapeError. */
function tomlServersIn(def: ClientDefinition, doc: Record<string, unknown>, file: string): Record<string, unknown> {
  let node: unknown = doc;
  for (const key of def.serversPath) {
    node = isRecord(node) ? node[key] : undefined;
    if (node === undefined || node === null) return {};
  }
  if (!isRecord(node)) throw new ConfigShapeError(file, def.serversPath.join('.'), Array.isArray(node) ? 'a list' : typeof node);
  return node;
}

/** The document without its servers table, to compare the rest of two versions of a file. */
function restOf(def: ClientDefinition, doc: Record<string, unknown>): string {
  const rest = { ...doc };
  delete rest[def.serversPath[0]];
  return canonicalJson(rest);
}

/** Codex's config.toml: small, so the edited text is parsed again whole and compared. */
export function parseTomlServers(def: ClientDefinition, text: string, file: string): ParsedServers {
  const doc = parseTomlObject(text, file);
  const servers = tomlServersIn(def, doc, file);
  const path = [...def.serversPath];
  return {
    servers,
    entryText: () => tomlTableTextIn(text, [...path, SPILLWAY_ENTRY_NAME]),
    apply(changes) {
      let out = text;
      let rewritten = false;
      for (const c of changes) {
        const r = c.value === undefined ? removeTomlTable(out, file, path, c.name) : setTomlTable(out, file, path, c.name, c.value);
        out = r.text;
        rewritten ||= r.rewritten;
      }
      if (out === text) return { text, rewritten: false };
      const next = parseTomlObject(out, file);
      if (restOf(def, doc) !== restOf(def, next)) throw internalEditError(file);
      assertServersChange(file, servers, tomlServersIn(def, next, file), changes);
      return { text: out, rewritten };
    },
  };
}
