/**
 * The program a package needs (npx, uvx, docker, dnx) and whether this computer has it on its PATH, with
 * the plain words of what is missing and how to get it. The PATH, the platform and the file check are
 * parameters, so tests give their own.
 */
import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import type { RegistryRuntime } from '../../../shared/api-registry.js';

export interface RuntimeNeed {
  /** The command Spillway will start. */
  command: string;
  /** What a user installs to get it. */
  product: string;
  /** Where to get it. */
  how: string;
}

const NEEDS: Record<string, RuntimeNeed> = {
  npx: { command: 'npx', product: 'Node.js', how: 'Install Node.js (the LTS version) from https://nodejs.org, then add the server again.' },
  uvx: {
    command: 'uvx',
    product: 'uv (the Python package runner)',
    how: 'Install uv from https://docs.astral.sh/uv/getting-started/installation/ (it brings Python with it), then add the server again.',
  },
  docker: {
    command: 'docker',
    product: 'Docker',
    how: 'Install Docker Desktop from https://www.docker.com/products/docker-desktop/ and start it, then add the server again.',
  },
  podman: { command: 'podman', product: 'Podman', how: 'Install Podman from https://podman.io, then add the server again.' },
  dnx: {
    command: 'dnx',
    product: 'the .NET 10 SDK',
    how: 'Install the .NET 10 SDK (or newer) from https://dotnet.microsoft.com/download, then add the server again.',
  },
};

/** What a command needs; unknown commands are described by their own name. */
export function runtimeNeed(command: string): RuntimeNeed {
  return NEEDS[command] ?? { command, product: command, how: `Install ${command} and make sure it is on the PATH, then add the server again.` };
}

export interface PathFacts {
  /** The PATH the hub starts servers with. */
  path: string | undefined;
  platform: NodeJS.Platform;
  /** PATHEXT on Windows (`.COM;.EXE;.BAT;.CMD` when absent). */
  pathExt?: string;
  /** Whether a file exists there (injected in tests). */
  isFile?: (file: string) => boolean;
}

const defaultIsFile = (file: string) => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** The full path of `command` on the PATH, or undefined. On Windows each PATHEXT extension is tried. */
export function findOnPath(command: string, facts: PathFacts): string | undefined {
  const windows = facts.platform === 'win32';
  const path = windows ? win32 : posix;
  const isFile = facts.isFile ?? defaultIsFile;
  const exts = windows ? ['', ...(facts.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of (facts.path ?? '').split(windows ? ';' : ':')) {
    if (!dir) continue;
    for (const ext of exts) {
      // Windows finds files whatever their case; the lower-case form is how npm names its shims.
      const file = path.join(dir, command + ext.toLowerCase());
      if (isFile(file)) return file;
    }
  }
  return undefined;
}

/** Whether the command is on this computer, and if not, what to install. */
export function checkRuntime(command: string, facts: PathFacts): RegistryRuntime {
  if (findOnPath(command, facts)) return { command, present: true };
  const need = runtimeNeed(command);
  return {
    command,
    present: false,
    missing: `This server needs ${need.product}, which is not on this computer ("${command}" was not found). ${need.how}`,
  };
}
