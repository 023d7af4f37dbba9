/**
 * Packages that only work once their install script has run (a native addon built by node-gyp, a
 * binary downloaded by postinstall). Spillway installs with scripts off — a catalog entry must not run
 * code on the computer as it is added — so such a package would be added and then crash at every start:
 * it is refused instead, in plain words, before anything is put in place.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ArboristNode, ArboristTree } from '@npmcli/arborist';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;

/** Why a package of the tree needs its install script, or undefined when it does not. */
function scriptNeed(node: ArboristNode): string | undefined {
  const scripts = node.package?.scripts ?? {};
  const script = INSTALL_SCRIPTS.find((name) => typeof scripts[name] === 'string' && scripts[name].trim() !== '');
  if (script) return `its ${script} script`;
  // npm builds a package with a binding.gyp with node-gyp when it has no install script of its own.
  if (node.package?.gypfile === true || (node.package?.gypfile !== false && existsSync(join(node.path, 'binding.gyp'))))
    return 'a native build (node-gyp)';
  return undefined;
}

/** The first package of the installed tree that needs an install script to work, with what it needs. */
export function needsInstallScript(tree: ArboristTree): { name: string; need: string } | undefined {
  for (const node of tree.inventory.values()) {
    if (node.isRoot || node.isLink) continue;
    const need = scriptNeed(node);
    if (need) return { name: node.name, need };
  }
  return undefined;
}

/** The refusal's words for `spec` when `found` needs its install script. */
export function installScriptRefusal(spec: string, found: { name: string; need: string }): string {
  const who = spec.startsWith(`${found.name}@`) ? spec : `${spec} (through its dependency ${found.name})`;
  return `${who} needs ${found.need} to run as it is installed, and Spillway does not run install scripts, so it was not added: it would fail at every start. Ask the server's publisher for a version without one, or run it yourself and add it as a command.`;
}
