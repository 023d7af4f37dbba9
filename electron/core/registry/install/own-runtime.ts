/**
 * The app's own runtime, which runs installed npm packages so that no Node or npx is needed on the
 * computer: the executable this process runs on, as Node. In Electron that is the Electron binary, made
 * to act as Node by ELECTRON_RUN_AS_NODE=1, exactly as the stdio bridge is launched (electron/main/
 * shell-paths.ts bridgeLaunch); in the headless hub it is the Node it runs on, where the variable is
 * ignored.
 */
export interface OwnRuntime {
  command: string;
  env: Record<string, string>;
}

/** This process's runtime. */
export function ownRuntime(execPath: string = process.execPath): OwnRuntime {
  return { command: execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** The command line that runs an installed package's program with the app's own runtime. */
export function ownRuntimeLaunch(
  runtime: OwnRuntime,
  script: string,
  packageArgs: string[],
  env: Record<string, string>,
): { type: 'stdio'; command: string; args: string[]; env: Record<string, string> } {
  return { type: 'stdio', command: runtime.command, args: [script, ...packageArgs], env: { ...env, ...runtime.env } };
}
