/**
 * What a registry answer may name as an install. An entry's name and version become a folder name in the
 * data folder, and an npm version becomes the spec npm acts on: neither is trusted as sent. A version like
 * `../../x` would put a folder outside the data folder, and an npm "version" may be any spec npm knows
 * (a web address, a file, a git repository, a tag or a range), which npm then downloads and runs.
 */
import { dirname, resolve } from 'node:path';

/** A registry name as the registry's schema has it, starting with a letter or digit (never `.` or `..`). */
const REGISTRY_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A plain version (the registry allows non-semver ones, e.g. `2025.1`): no path separator, no `..`. */
const PLAIN_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;

/** An exact semver version (semver.org's pattern): what npm publishes, and every npm entry in the registry uses. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** An npm package name (validate-npm-package-name's rules; old names may hold capitals). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

/** A value from a registry answer as a message quotes it: short, one line. */
const quoted = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** Why a bundle's registry name and version cannot name its folder, or undefined when they can. */
export function bundleRefProblem(ref: { name: string; version: string }): string | undefined {
  if (!REGISTRY_NAME.test(ref.name) || ref.name.length > 200)
    return `The registry entry's name ${quoted(ref.name)} is not a plain "namespace/name", so Spillway will not install its bundle. Tell the server's publisher.`;
  if (!PLAIN_VERSION.test(ref.version) || ref.version.includes('..'))
    return `The registry lists ${quoted(ref.version)} as the version of ${ref.name}'s bundle, which is not a plain version number (like 1.2.3), so Spillway will not install it. Pick another version, or tell the server's publisher.`;
  return undefined;
}

/**
 * Why an npm package name and version cannot be installed, or undefined when they can: only a valid
 * package name and an exact version (none means the npm registry's latest) are accepted.
 */
export function npmRefProblem(name: string, version: string | undefined): string | undefined {
  if (!NPM_NAME.test(name) || name.length > 214)
    return `${quoted(name)} is not a valid npm package name, so Spillway will not install it. Tell the server's publisher.`;
  if (version !== undefined && !SEMVER.test(version))
    return `The registry lists ${quoted(version)} as the version of the npm package ${name}. Spillway installs only an exact version number (like 1.2.3), never a web address, a file, a git repository, a tag or a range. Pick another version, or tell the server's publisher.`;
  return undefined;
}

/** A PyPI project name (PEP 508): letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit. */
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/;

/** A PEP 440 public version without an epoch (1.2.3, 0.4.10rc1, 2.0.post1.dev3, 1.0+local.7). */
const PYPI_VERSION =
  /^v?\d+(?:\.\d+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?(?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?(?:[-_.]?dev[-_.]?\d*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;

/** A NuGet package id, and a NuGet version (two to four numbers, with SemVer 2's pre-release and build parts). */
const NUGET_ID = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9_])?$/;
const NUGET_VERSION = /^\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** An image reference (the distribution spec's grammar): [host[:port]/]path[:tag][@sha256:digest]. */
const PATH_PART = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const OCI_IMAGE = new RegExp(
  `^(?:[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*(?::\\d+)?/)?${PATH_PART}(?:/${PATH_PART})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$`,
);
const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Why a PyPI, NuGet or container package's name and version cannot be run, or undefined when they can.
 * They become words of the command line (`uvx name==version`, `dnx name@version`, `docker run … image:tag`):
 * anything but a plain name and version could be read as an option, a web address or a file there.
 */
export function packageRefProblem(registryType: 'pypi' | 'nuget' | 'oci', name: string, version: string | undefined): string | undefined {
  const [namePattern, versionPattern, kind, example] =
    registryType === 'pypi'
      ? [PYPI_NAME, PYPI_VERSION, 'PyPI package', '1.2.3']
      : registryType === 'nuget'
        ? [NUGET_ID, NUGET_VERSION, 'NuGet package', '1.2.3']
        : [OCI_IMAGE, OCI_TAG, 'container image', '1.2.3 or latest'];
  if (name.length > 255 || !namePattern.test(name))
    return `${quoted(name)} is not a valid ${kind} name, so Spillway will not run it. Tell the server's publisher.`;
  if (version !== undefined && (version.length > 128 || !versionPattern.test(version)))
    return `The registry lists ${quoted(version)} as the version of the ${kind} ${name}, which is not a plain version (like ${example}), so Spillway will not run it. Pick another version, or tell the server's publisher.`;
  return undefined;
}

/** `<parent>/<name>` when that is a folder directly inside `parent`; undefined for anything that would leave it. */
export function childFolder(parent: string, name: string): string | undefined {
  const root = resolve(parent);
  const target = resolve(root, name);
  return dirname(target) === root && target !== root ? target : undefined;
}

/** Whether `folder` is a folder directly inside `parent` (what removing an install checks first). */
export const isChildFolder = (parent: string, folder: string) => dirname(resolve(folder)) === resolve(parent) && resolve(folder) !== resolve(parent);
