/**
 * How a registry entry can be run, in plain words for the Browse list: the registry's codes ("pypi", "oci")
 * mean nothing to someone who has never packaged software.
 */
const KIND_WORDS: Readonly<Record<string, string>> = {
  npm: 'npm package',
  pypi: 'Python package',
  oci: 'Docker image',
  nuget: '.NET package',
  mcpb: 'MCPB bundle',
  remote: 'web address',
};

/** One kind in words; a code this version does not know is shown as the registry wrote it. */
export function packageKindWords(kind: string): string {
  return Object.hasOwn(KIND_WORDS, kind) ? KIND_WORDS[kind]! : kind;
}

/** An entry's kinds as one phrase ("Python package, web address"); none at all says it cannot be run here. */
export function packageKindsPhrase(kinds: readonly string[]): string {
  return kinds.length > 0 ? kinds.map(packageKindWords).join(', ') : 'no way to run it here';
}
