/**
 * From a registry entry to what Spillway runs: a package becomes a command line (npx, uvx, docker, dnx)
 * with its runtime arguments, package arguments and environment; a remote becomes an HTTP or SSE
 * upstream with its headers. The plan also says, in one plain sentence, exactly what will run or where
 * it will connect.
 */
import { EntryInputs, type InputMode } from './entry-inputs.js';
import { npmRefProblem, packageRefProblem } from './install/install-names.js';
import type { Package, RemoteTransport, ServerDetail } from './server-json.js';

export type EntryOption = { kind: 'package'; index: number; pkg: Package } | { kind: 'remote'; index: number; remote: RemoteTransport };

export type Launch =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** An npm package Spillway installs into its data folder and runs with its own runtime (install/). */
export interface NpmInstall {
  name: string;
  /** The entry's pinned version; the registry's latest when it names none. */
  version?: string;
  packageArgs: string[];
  env: Record<string, string>;
}

/** An MCPB bundle Spillway downloads into its data folder and runs with its own runtime (mcpb/). */
export interface McpbInstall {
  /** The bundle's URL (the package's identifier). */
  url: string;
  /** The published SHA-256 the download is checked against (the schema requires it for mcpb). */
  sha256: string;
  version?: string;
  packageArgs: string[];
  env: Record<string, string>;
}

/**
 * How npm packages run: `install` into the data folder and with the app's own runtime (what the catalog
 * does), or `npx` (without an installer, e.g. a plan shown only).
 */
export type NpmMode = 'install' | 'npx';

export interface LaunchPlan {
  /** With `npm: 'install'`, the npx line is only a placeholder: the real one comes from the install. */
  launch: Launch;
  /** Set for an npm package planned with `npm: 'install'`. */
  npm?: NpmInstall;
  /** Set for an MCPB bundle (planned with `npm: 'install'`: the app that installs packages installs bundles too). */
  mcpb?: McpbInstall;
  inputs: EntryInputs;
  /** What will run or where it will connect, secret values masked. */
  summary: string;
}

/** Every way to run an entry: its packages, then its remotes. */
export function entryOptions(server: ServerDetail): EntryOption[] {
  return [
    ...(server.packages ?? []).map((pkg, index) => ({ kind: 'package' as const, index, pkg })),
    ...(server.remotes ?? []).map((remote, index) => ({ kind: 'remote' as const, index, remote })),
  ];
}

const TRANSPORT_WORDS = { 'streamable-http': 'Streamable HTTP', sse: 'SSE' } as const;

/** A short name for an option: "npm package airtable-mcp-server 1.7.3", "Remote server (SSE)". */
export function optionLabel(option: EntryOption): string {
  if (option.kind === 'remote') return `Remote server (${TRANSPORT_WORDS[option.remote.type]})`;
  const { registryType, identifier, version } = option.pkg;
  const kind = registryType === 'oci' ? 'Container image' : registryType === 'mcpb' ? 'MCPB bundle' : `${registryType} package`;
  return `${kind} ${identifier}${version && registryType !== 'oci' && registryType !== 'mcpb' ? ` ${version}` : ''}`;
}

/**
 * The command a package runs with (npx, uvx, docker or podman, dnx; `node` for a bundle, which the app's
 * own runtime stands in for), or why Spillway cannot run it.
 */
export function packageCommand(pkg: Package, npmMode: NpmMode = 'npx'): { command: string } | { reason: string } {
  if (pkg.transport.type !== 'stdio') {
    return {
      reason: `This package serves over HTTP once it is started (at ${pkg.transport.url}); Spillway can add packages that talk over stdio, or remote servers.`,
    };
  }
  if (pkg.registryType === 'pypi' || pkg.registryType === 'nuget' || pkg.registryType === 'oci') {
    const problem = packageRefProblem(pkg.registryType, pkg.identifier, pkg.version);
    if (problem) return { reason: problem };
  }
  switch (pkg.registryType) {
    case 'npm': {
      // npx and npm take a "version" for any spec (a web address, a file, git): only an exact version is run.
      const problem = npmRefProblem(pkg.identifier, pkg.version);
      return problem ? { reason: problem } : { command: 'npx' };
    }
    case 'pypi':
      return { command: 'uvx' };
    case 'oci':
      // podman takes docker's arguments; any other hint still runs with docker.
      return { command: pkg.runtimeHint === 'podman' ? 'podman' : 'docker' };
    case 'nuget':
      return { command: 'dnx' };
    case 'mcpb':
      if (!pkg.fileSha256)
        return {
          reason:
            'This bundle is listed without its SHA-256 checksum (fileSha256), which the registry requires for MCPB bundles, so Spillway will not download it. Tell the server’s publisher.',
        };
      if (npmMode !== 'install') return { reason: 'MCPB bundles are downloaded and unpacked by the app itself, which this view cannot do.' };
      return { command: 'node' };
    default:
      return { reason: `Spillway does not know how to run "${pkg.registryType}" packages.` };
  }
}

/** Whether a host name is this computer: 127.0.0.0/8, ::1 or localhost. */
const isLoopbackHost = (host: string) => host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

/**
 * Why Spillway will not connect to a remote's address: plain http:// to another computer would send its
 * headers (a secret key among them) and every tool call unencrypted. Undefined for https, for this
 * computer, and for an address whose host is still a `{variable}` (it is checked again once filled).
 */
export function remoteAddressProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not an address at all: the config's own check refuses it
  }
  if (parsed.protocol !== 'http:' || parsed.hostname.includes('{') || isLoopbackHost(parsed.hostname)) return undefined;
  return (
    `This remote server's address (${parsed.origin}) starts with http://, not https://, so its headers (a key among them) and every tool call would cross the network unencrypted. ` +
    `Spillway connects over plain http only to servers on this computer. Ask the server's publisher for an https:// address.`
  );
}

/** Plans one option; throws an Error with the reason when Spillway cannot run it. */
export function planOption(option: EntryOption, mode: InputMode, npmMode: NpmMode = 'npx'): LaunchPlan {
  const inputs = new EntryInputs(mode);
  if (option.kind === 'package' && option.pkg.registryType === 'mcpb') return planBundle(option.pkg, inputs, npmMode);
  const launch = option.kind === 'remote' ? remoteLaunch(option.remote, inputs) : packageLaunch(option.pkg, inputs);
  if (mode.kind === 'values' && launch.type !== 'stdio') {
    // The address as filled in: a `{host}` variable may have made it plain http to another computer.
    const problem = remoteAddressProblem(launch.url);
    const variable = option.kind === 'remote' ? /\{([A-Za-z0-9_.-]+)\}/.exec(option.remote.url)?.[1] : undefined;
    if (problem) inputs.problems.push({ key: variable ? `var:${variable}` : 'url', message: problem });
  }
  if (npmMode === 'install' && option.kind === 'package' && option.pkg.registryType === 'npm' && launch.type === 'stdio') {
    const pkg = option.pkg;
    // npx's own arguments (runtimeArguments) mean nothing to the runtime that runs the installed program.
    const packageArgs = inputs.arguments(pkg.packageArguments, 'package');
    const npm = { name: pkg.identifier, ...(pkg.version ? { version: pkg.version } : {}), packageArgs, env: launch.env };
    return { launch, npm, inputs, summary: installSummary(npm, inputs.secretValues, secretNames(inputs)) };
  }
  return { launch, inputs, summary: launchSummary(launch, inputs.secretValues, secretNames(inputs)) };
}

/** A bundle: downloaded, checked and unpacked by the app at add time; the launch comes from its manifest then. */
function planBundle(pkg: Package, inputs: EntryInputs, npmMode: NpmMode): LaunchPlan {
  const how = packageCommand(pkg, npmMode);
  if ('reason' in how) throw new Error(how.reason);
  const env: Record<string, string> = {};
  for (const item of pkg.environmentVariables ?? []) {
    const value = inputs.keyValue('env', item);
    if (value !== undefined) env[item.name] = value;
  }
  const packageArgs = inputs.arguments(pkg.packageArguments, 'package');
  const mcpb = { url: pkg.identifier, sha256: pkg.fileSha256 ?? '', ...(pkg.version ? { version: pkg.version } : {}), packageArgs, env };
  // A placeholder until the bundle is unpacked: its manifest says what runs.
  const launch: Launch = { type: 'stdio', command: how.command, args: [bundleFile(pkg.identifier), ...packageArgs], env };
  const secretValues = inputs.secretValues;
  const args = packageArgs.length ? ` with ${maskText(packageArgs.map(shellWord).join(' '), secretValues)}` : '';
  const names = Object.keys(env);
  const labels = secretNames(inputs);
  const named = names.map((n) => (labels.has(n) || secretValues.has(env[n]) ? `${n} (secret)` : n)).join(', ');
  // What runs is only known from the manifest (mcpb/bundle-summary.ts says it once the form has the bundle).
  const summary =
    `Downloads ${bundleFile(pkg.identifier)} (checked against its published SHA-256) into Spillway's data folder and runs the command its manifest names${args}` +
    `${names.length ? `, with ${names.length === 1 ? 'the variable' : 'the variables'} ${named} set` : ''}; the form shows that command before anything runs.`;
  return { launch, mcpb, inputs, summary };
}

/** The file name at the end of a bundle's URL. */
export function bundleFile(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

/** "Installs pkg 1.0 into Spillway's data folder and runs it with Spillway's own runtime …". */
function installSummary(npm: NpmInstall, secretValues: Set<string>, secretLabels: Set<string>): string {
  const what = `${npm.name} ${npm.version ?? '(its latest version)'}`;
  const args = npm.packageArgs.length ? ` with ${maskText(npm.packageArgs.map(shellWord).join(' '), secretValues)}` : '';
  const env = Object.keys(npm.env);
  const named = env.map((n) => (secretLabels.has(n) || secretValues.has(npm.env[n]) ? `${n} (secret)` : n)).join(', ');
  return (
    `Installs ${what} into Spillway's data folder and runs it on this computer with Spillway's own runtime (Node.js is not needed)${args}` +
    `${env.length ? `, with ${env.length === 1 ? 'the variable' : 'the variables'} ${named} set` : ''}.`
  );
}

function remoteLaunch(remote: RemoteTransport, inputs: EntryInputs): Launch {
  // Every variable of the address is needed: one left empty would leave the address without its part.
  const variables = remote.variables
    ? Object.fromEntries(Object.entries(remote.variables).map(([name, v]) => [name, { ...v, isRequired: true }]))
    : undefined;
  const url = inputs.template(remote.url, variables, 'address') ?? remote.url;
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    const value = inputs.keyValue('header', header);
    if (value !== undefined) headers[header.name] = value;
  }
  return { type: remote.type === 'sse' ? 'sse' : 'http', url, headers };
}

function packageLaunch(pkg: Package, inputs: EntryInputs): Launch {
  const how = packageCommand(pkg);
  if ('reason' in how) throw new Error(how.reason);
  const runtimeArgs = inputs.arguments(pkg.runtimeArguments, 'runtime');
  const env: Record<string, string> = {};
  const isOci = pkg.registryType === 'oci';
  // Variables a docker `-e NAME=…` argument sets already: asking for them again would be asking twice.
  const setByArguments = isOci ? dockerInlineEnv(pkg) : new Set<string>();
  for (const item of pkg.environmentVariables ?? []) {
    if (setByArguments.has(item.name)) continue;
    const value = inputs.keyValue('env', item);
    if (value !== undefined) env[item.name] = value;
  }
  const packageArgs = inputs.arguments(pkg.packageArguments, 'package');
  const version = pkg.version;
  switch (pkg.registryType) {
    case 'npm':
      return {
        type: 'stdio',
        command: how.command,
        args: ['-y', ...runtimeArgs, version ? `${pkg.identifier}@${version}` : pkg.identifier, ...packageArgs],
        env,
      };
    case 'pypi':
      return {
        type: 'stdio',
        command: how.command,
        args: [...runtimeArgs, version ? `${pkg.identifier}==${version}` : pkg.identifier, ...packageArgs],
        env,
      };
    case 'nuget':
      return {
        type: 'stdio',
        command: how.command,
        args: [
          ...runtimeArgs,
          version ? `${pkg.identifier}@${version}` : pkg.identifier,
          '--yes',
          ...(packageArgs.length ? ['--', ...packageArgs] : []),
        ],
        env,
      };
    default:
      return dockerLaunch(pkg, how.command, runtimeArgs, packageArgs, env, inputs.secretValues);
  }
}

/** Names that a docker `-e NAME=value` runtime argument sets. */
function dockerInlineEnv(pkg: Package): Set<string> {
  const names = new Set<string>();
  for (const arg of pkg.runtimeArguments ?? []) {
    if (arg.type !== 'named' || (arg.name !== '-e' && arg.name !== '--env') || arg.value === undefined) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(arg.value);
    if (m) names.add(m[1]);
  }
  return names;
}

/**
 * `docker run -i --rm [-e NAME…] <image> [package args]`. An entry's runtime arguments may hold the whole
 * `run --rm -i … <image>` (terraform 0.3.2) or only the `-e` parts (terraform 1.2.0): what is missing is
 * added, nothing twice. Environment values reach the container as `-e NAME` (docker reads them from its
 * own environment), and a secret written as `-e NAME=secret` is moved there too, off the command line.
 */
function dockerLaunch(
  pkg: Package,
  command: string,
  runtimeArgs: string[],
  packageArgs: string[],
  env: Record<string, string>,
  secrets: Set<string>,
): Launch {
  const args = runtimeArgs[0] === 'run' ? [...runtimeArgs] : ['run', '-i', '--rm', ...runtimeArgs];
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] !== '-e' && args[i] !== '--env') continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(args[i + 1]);
    if (m && [...secrets].some((s) => m[2].includes(s))) {
      env[m[1]] = m[2];
      args[i + 1] = m[1];
    }
  }
  const forwarded = new Set(args.filter((_, i) => i > 0 && (args[i - 1] === '-e' || args[i - 1] === '--env')).map((a) => a.split('=')[0]));
  const forwards = Object.keys(env)
    .filter((name) => !forwarded.has(name))
    .flatMap((name) => ['-e', name]);
  const image = imageRef(pkg);
  const at = args.findIndex((a) => a === image || `docker.io/${a}` === image || a === pkg.identifier);
  if (at >= 0) args.splice(at, 0, ...forwards);
  else args.push(...forwards, image);
  return { type: 'stdio', command, args: [...args, ...packageArgs], env };
}

/** The image reference: the identifier, with `:version` when it names no tag or digest. */
function imageRef(pkg: Package): string {
  const last = pkg.identifier.split('/').pop() ?? '';
  return pkg.version && !last.includes(':') && !last.includes('@') ? `${pkg.identifier}:${pkg.version}` : pkg.identifier;
}

function secretNames(inputs: EntryInputs): Set<string> {
  return new Set(inputs.fields.filter((f) => f.secret).map((f) => f.label));
}

/** A word of a command line as a shell would need it quoted (for reading only: Spillway never uses a shell). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function maskText(text: string, secrets: Set<string>): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (s) out = out.split(s).join('***');
  return out;
}

/** "Runs on this computer: npx -y pkg@1.0 (with AIRTABLE_API_KEY set, a secret)." / "Connects to https://… over SSE …". */
export function launchSummary(launch: Launch, secretValues: Set<string>, secretLabels: Set<string> = new Set()): string {
  const named = (names: string[]) =>
    names
      .map((n) => (secretLabels.has(n) || secretValues.has(launch.type === 'stdio' ? launch.env[n] : launch.headers[n]) ? `${n} (secret)` : n))
      .join(', ');
  if (launch.type === 'stdio') {
    const line = maskText([launch.command, ...launch.args].map(shellWord).join(' '), secretValues);
    const env = Object.keys(launch.env);
    return `Runs on this computer: ${line}${env.length ? `, with ${env.length === 1 ? 'the variable' : 'the variables'} ${named(env)} set` : ''}.`;
  }
  const headers = Object.keys(launch.headers);
  const how = launch.type === 'sse' ? 'SSE' : 'Streamable HTTP';
  return `Connects to ${maskText(launch.url, secretValues)} over ${how}${headers.length ? `, sending ${headers.length === 1 ? 'the header' : 'the headers'} ${named(headers)}` : ''}.`;
}
