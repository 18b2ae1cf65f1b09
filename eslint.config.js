// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import globals from 'globals';

/** An import-pattern ban of the named top-level folders (main/x, ../x, ../../x/...). */
function inFolder(folders, message) {
  return { regex: `^(?:\\.\\.?/)+(?:[^/]+/)*?(?:${folders.join('|')})(?:/|$)`, message };
}

/** main/simulator stands in for the service: only the hosts that start it (and tests) may import it. */
const SIMULATOR_MESSAGE = 'App code may not import main/simulator (the test peer); only main/index.ts and main/hosts start it.';

const ELECTRON_ONLY_IN_HOSTS = { name: 'electron', message: 'Electron is used only in main/index.ts, main/hosts and main/ipc.' };

/** Globals of only one kind of process, banned in the core. */
const browserAndNodeOnly = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'process', 'Buffer', 'require', 'global', '__dirname', '__filename'];

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs',
  'fs/promises', 'http', 'http2', 'https', 'net', 'os', 'path', 'process', 'readline', 'stream',
  'tls', 'url', 'util', 'worker_threads', 'zlib',
];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', '.cache/**', '**/.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    files: ['main/**/*.ts', 'preload/**/*.ts', 'test/**/*.ts', '*.config.*', 'test/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Tests inspect parsed JSON responses whose shape is what is under test.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // ---- Layers (docs/ARCHITECTURE.md). Each file gets ONE no-restricted-imports setting (flat config
  // replaces, never merges, a rule's options), so every block below lists all of its folder's bans.
  {
    // The renderer is sandboxed: it reaches main only through window.swath (src/bridge.ts).
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', ...nodeBuiltins].map((name) => ({
          name,
          message: 'The renderer may not import Node or Electron modules; go through src/bridge.ts.',
        })),
        patterns: [
          { group: ['node:*'], message: 'The renderer may not import Node built-ins.' },
          inFolder(['main'], 'The renderer may not import main; it reaches main only through src/bridge.ts and preload/contract.'),
        ],
      }],
    },
  },
  {
    // The neutral core runs in every process: no Node, no DOM, no Electron, no other folder.
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', 'ws', 'undici', ...nodeBuiltins].map((name) => ({ name, message: 'common/ may not use Node or Electron.' })),
        patterns: [
          { group: ['node:*'], message: 'common/ may not use Node built-ins.' },
          inFolder(['main', 'renderer', 'preload', 'test'], 'common/ imports nothing outside itself (packages excepted).'),
        ],
      }],
      'no-restricted-globals': ['error', ...browserAndNodeOnly.map((name) => ({ name, message: 'common/ runs in every process: no DOM or Node globals.' }))],
    },
  },
  {
    // The contract is shared by the three processes: it may use the core, nothing else of the repo.
    files: ['preload/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', ...nodeBuiltins].map((name) => ({ name, message: 'The contract runs in every process.' })),
        patterns: [inFolder(['main', 'renderer', 'test'], 'preload/contract may import only common/ and packages.')],
      }],
    },
  },
  {
    // Main's lower layers know neither the IPC, nor the app core, nor the hosts, nor the simulator.
    files: ['main/api/**/*.ts', 'main/keychain/**/*.ts', 'main/downloads/**/*.ts', 'main/library/**/*.ts', 'main/geotiff/**/*.ts', 'main/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [ELECTRON_ONLY_IN_HOSTS],
        patterns: [
          inFolder(['ipc', 'services', 'hosts'], 'api, keychain, downloads, library, geotiff and shared sit below ipc/, services/ and hosts/ and may not import them.'),
          inFolder(['simulator'], SIMULATOR_MESSAGE),
        ],
      }],
    },
  },
  {
    files: ['main/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [ELECTRON_ONLY_IN_HOSTS],
        patterns: [
          inFolder(['hosts'], 'services/ may not import hosts/: the hosts mount the services.'),
          inFolder(['simulator'], SIMULATOR_MESSAGE),
        ],
      }],
    },
  },
  {
    // Time series and change layers: over the library and geotiff, answering the ipc handler table; never the app core, hosts or simulator.
    files: ['main/analysis/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [ELECTRON_ONLY_IN_HOSTS],
        patterns: [inFolder(['services', 'hosts'], 'analysis/ sits below services/ and hosts/.'), inFolder(['simulator'], SIMULATOR_MESSAGE)],
      }],
    },
  },
  {
    // Raw ipcMain belongs in main/ipc and main/hosts only.
    files: ['main/ipc/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [inFolder(['simulator'], SIMULATOR_MESSAGE), inFolder(['hosts'], 'ipc/ may not import hosts/.')] }],
    },
  },
  {
    // The simulator is the service's stand-in: it may use the core, main/geotiff and main/shared's
    // Node plumbing (atomic files, loopback Host checks, private temp folders), never the app.
    files: ['main/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'The simulator runs without Electron (npm run simulator).' }],
        patterns: [inFolder(['api', 'keychain', 'downloads', 'library', 'ipc', 'services', 'hosts'], 'The simulator may import only common/, main/geotiff, main/shared and packages.')],
      }],
    },
  },
);
