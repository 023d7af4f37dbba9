// @ts-check
/**
 * Lint for the whole repository: typescript-eslint's recommended rules, Svelte's recommended rules for
 * the renderer's components, and the folder direction of issue 12 (lower folders never import higher
 * ones). The "no two folders of electron/core import each other" rule has no plugin equivalent; it
 * lives in test/unit/architecture.test.ts, which also lists the direction in a readable failure.
 *
 * Not type-aware on purpose: with typescript-eslint's type-checked rules a whole-repo run took ~27 s on
 * this 2-core machine against ~6 s without (and the project service does not find test/renderer's files).
 */
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

const core = 'electron/core';
const inCore = (...names) => names.map((name) => `${core}/${name}`);

/** The hub is electron/core/hub.ts today, and hub/ if it is split into a folder. */
const hub = inCore('hub.ts', 'hub');

/** Every folder of electron/core (test/unit/architecture.test.ts fails when one is missing here). */
const coreFolders = [
  'wire',
  'text',
  'files',
  'tokens',
  'log',
  'pii',
  'catalog',
  'clients',
  'registry',
  'secrets',
  'oauth',
  'encoding',
  'ledger',
  'upstream',
  'downstream',
  'spill',
  'compress',
  'policy',
  'call',
  'control',
  'app',
];

/**
 * The folder direction (issue 12): files under `target` may not import anything under `from` (`except`
 * is relative to `from`). Lowest first: wire, text ← files ← leaves (tokens, log, pii, catalog, clients, registry, secrets) ←
 * ledger ← upstream/downstream ← spill/compress ← policy ← call ← hub ← control ← app (the composition
 * root). test/unit/architecture.test.ts reads this same list.
 */
export const zones = [
  // shared/ is the contract both sides compile against: it imports nothing of ours.
  { target: 'shared', from: ['electron', 'renderer', 'test'], message: 'shared/ imports nothing of ours.' },
  // The core runs in plain Node (headless hub, CLI, tests): never the Electron shell.
  {
    target: core,
    from: ['electron/main', 'electron/cli', 'electron/preload'],
    message: 'electron/core never imports the Electron shell or the CLI.',
  },
  // wire/ is the floor of the core: framing and spooling only.
  { target: inCore('wire'), from: core, except: ['wire'], message: 'electron/core/wire imports no other electron/core folder.' },
  // text/ (the linear-time regex engine and the deadline for user- and model-supplied patterns) is a floor too.
  { target: inCore('text'), from: core, except: ['text'], message: 'electron/core/text imports no other electron/core folder.' },
  {
    target: inCore('files'),
    from: core,
    except: ['files', 'wire'],
    message: 'electron/core/files is a low leaf: of the core it imports only wire/.',
  },
  {
    target: [...inCore(...coreFolders.filter((name) => name !== 'app')), ...hub],
    from: inCore('app'),
    message: 'Nothing in electron/core imports app/ (the composition root).',
  },
  {
    target: inCore('upstream', 'downstream'),
    from: [...inCore('spill', 'compress', 'policy', 'call', 'control'), ...hub],
    message: 'upstream/ and downstream/ build on wire/ and the leaves only, never on spill/, compress/, policy/, call/, control/ or the hub.',
  },
  { target: inCore('upstream'), from: inCore('downstream'), message: 'upstream/ and downstream/ never import each other.' },
  { target: inCore('downstream'), from: inCore('upstream'), message: 'upstream/ and downstream/ never import each other.' },
  {
    target: inCore(
      'spill',
      'compress',
      'policy',
      'tokens',
      'log',
      'pii',
      'catalog',
      'ledger',
      'clients',
      'registry',
      'secrets',
      'oauth',
      'encoding',
      'files',
    ),
    from: [...inCore('call', 'downstream', 'control'), ...hub],
    message: 'Leaf folders never import call/, downstream/, control/ or the hub.',
  },
  {
    target: inCore('tokens', 'log', 'pii', 'catalog', 'clients', 'registry', 'secrets', 'oauth', 'encoding', 'files'),
    from: inCore('ledger', 'upstream', 'spill', 'compress', 'policy'),
    message:
      'The lowest leaves (tokens, log, pii, catalog, clients, registry, secrets, oauth, encoding, files) never import the folders built on them.',
  },
  // encoding/ (JSON or TOON, issue 18) measures with tokens/ and nothing else of the core.
  { target: inCore('encoding'), from: core, except: ['encoding', 'tokens'], message: 'electron/core/encoding imports only tokens/ of the core.' },
  {
    target: inCore('ledger'),
    from: inCore('upstream', 'spill', 'compress', 'policy'),
    message: 'ledger/ builds on log/ and tokens/ only, never on upstream/, spill/, compress/ or policy/.',
  },
  { target: inCore('compress'), from: inCore('spill'), message: 'compress/ and spill/ never import each other.' },
  { target: inCore('spill'), from: inCore('compress'), message: 'compress/ and spill/ never import each other.' },
  // policy/ places tools over spill/ (dispatch reads spilled results) and compress/ (the compression fields).
  { target: inCore('spill', 'compress'), from: inCore('policy'), message: 'spill/ and compress/ never import policy/ (policy builds on them).' },
  { target: inCore('call'), from: [...inCore('control'), ...hub], message: 'call/ never imports control/ or the hub.' },
  { target: hub, from: inCore('control'), message: 'The hub never imports control/ (control depends on the hub).' },
  // The renderer is a web page: it reaches the app only through renderer/src/lib/api.ts.
  { target: 'renderer/src', from: 'electron', message: 'The renderer imports nothing from electron/.' },
];

/** A few Node globals for the plain .js launchers (TypeScript files get no-undef from the compiler). */
const nodeGlobals = { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' };

/** Browser APIs that would let a renderer file reach the app around its contract module. */
const rendererTransports = ['fetch', 'EventSource', 'WebSocket', 'XMLHttpRequest'].map((name) => ({
  name,
  message: 'The renderer reaches the app only through renderer/src/lib/api.ts.',
}));

export default defineConfig(
  {
    ignores: ['dist/**', 'build/**', 'node_modules/**', 'test-artifacts/**', 'test/fixtures/**/*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    // The compiler checks undefined names in TypeScript (and Svelte's TS scripts) better than no-undef.
    files: ['**/*.ts', '**/*.cts', '**/*.svelte'],
    rules: { 'no-undef': 'off' },
  },
  {
    rules: {
      // A leading underscore marks a value left unused on purpose (a rest-sibling omit, a fixed-arity callback).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // A sandboxed preload is CommonJS; under verbatimModuleSyntax that takes `import x = require(...)`.
    files: ['**/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }] },
  },
  {
    files: ['electron/**/*.ts', 'electron/**/*.cts', 'electron/**/*.js', 'shared/**/*.ts', 'renderer/src/**/*.ts', 'renderer/src/**/*.svelte'],
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x skips .ts modules when it follows imports (no-cycle would see nothing).
      'import-x/extensions': ['.ts', '.cts', '.js', '.mjs', '.cjs', '.svelte'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.cts'] },
      'import-x/resolver-next': [
        // Sources import `./x.js` and the file on disk is `x.ts` (NodeNext resolution).
        createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'], '.cjs': ['.cts', '.cjs'] } }),
      ],
    },
    rules: {
      // Zones are repo-relative whichever folder eslint runs from.
      'import-x/no-restricted-paths': ['error', { zones, basePath: import.meta.dirname }],
    },
  },
  {
    files: ['electron/**/*.ts', 'electron/**/*.cts', 'shared/**/*.ts'],
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The hub's process stays off ICU: the first Intl or locale call maps ICU's data in (4–9 MB of a hub that
    // idles near 100 MB). shared/plain-text.ts writes numbers as en-US does and orders text the same everywhere.
    files: ['electron/**/*.ts', 'electron/**/*.cts', 'shared/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'Intl', message: 'No ICU in the hub: use formatNumber/formatCount from shared/plain-text.ts.' }],
      'no-restricted-properties': [
        'error',
        ...['localeCompare', 'toLocaleString', 'toLocaleDateString', 'toLocaleTimeString', 'toLocaleLowerCase', 'toLocaleUpperCase'].map(
          (property) => ({
            property,
            message: 'No ICU in the hub: use compareText, formatNumber or formatCount from shared/plain-text.ts.',
          }),
        ),
      ],
    },
  },
  {
    files: ['electron/core/**/*.ts', 'shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'electron/core and shared/ run without Electron.' }] }],
    },
  },
  {
    files: ['renderer/src/**/*.ts', 'renderer/src/**/*.svelte'],
    ignores: ['renderer/src/lib/api.ts'],
    rules: {
      'no-restricted-globals': ['error', ...rendererTransports],
      'no-restricted-properties': [
        'error',
        { object: 'window', property: 'spillway', message: 'Only renderer/src/lib/api.ts talks to the preload.' },
        { object: 'globalThis', property: 'spillway', message: 'Only renderer/src/lib/api.ts talks to the preload.' },
      ],
    },
  },
);
