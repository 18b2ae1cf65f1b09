// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import globals from 'globals';
import layers from './scripts/eslint-layers.js';

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
    files: ['main/**/*.ts', 'simulator/**/*.ts', 'preload/**/*.ts', 'test/**/*.ts', '*.config.*', 'test/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Tests inspect parsed JSON responses whose shape is what is under test.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // ---- Layers (docs/ARCHITECTURE.md): which folder may import which is the table of scripts/layers.js,
  // checked by scripts/eslint-layers.js; the blocks after it ban packages and globals per process.
  // Each file gets ONE no-restricted-imports setting (flat config replaces, never merges, a rule's options).
  {
    files: ['main/**/*.{ts,js,mjs}', 'simulator/**/*.{ts,js,mjs}', 'renderer/**/*.{ts,vue,js}', 'preload/**/*.ts', 'common/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/allowed-imports': 'error', 'layers/no-cycles': 'error', 'layers/no-folder-cycles': 'error' },
  },
  {
    // The renderer is sandboxed: it reaches main only through window.swath (src/platform/bridge.ts).
    files: ['renderer/**/*.{ts,vue}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', ...nodeBuiltins].map((name) => ({
          name,
          message: 'The renderer may not import Node or Electron modules; go through src/platform/bridge.ts.',
        })),
        patterns: [{ group: ['node:*'], message: 'The renderer may not import Node built-ins.' }],
      }],
    },
  },
  {
    // The neutral core runs in every process: no Node, no DOM, no Electron.
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', 'ws', 'undici', ...nodeBuiltins].map((name) => ({ name, message: 'common/ may not use Node or Electron.' })),
        patterns: [{ group: ['node:*'], message: 'common/ may not use Node built-ins.' }],
      }],
      'no-restricted-globals': ['error', ...browserAndNodeOnly.map((name) => ({ name, message: 'common/ runs in every process: no DOM or Node globals.' }))],
    },
  },
  {
    // The contract is shared by the three processes.
    files: ['preload/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['electron', 'keytar', ...nodeBuiltins].map((name) => ({ name, message: 'The contract runs in every process.' })),
      }],
    },
  },
  {
    // Electron (and raw ipcMain) belongs in main/index.ts, main/hosts and main/ipc only.
    files: ['main/**/*.ts', 'simulator/**/*.ts'],
    ignores: ['main/index.ts', 'main/hosts/**', 'main/ipc/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [ELECTRON_ONLY_IN_HOSTS] }] },
  },
);
