// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import globals from 'globals';

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
        patterns: [{ group: ['node:*'], message: 'The renderer may not import Node built-ins.' }],
      }],
    },
  },
  {
    // Raw ipcMain belongs in main/ipc and main/hosts only.
    files: ['main/**/*.ts'],
    ignores: ['main/ipc/**', 'main/hosts/**', 'main/index.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'Electron is used only in main/index.ts, main/hosts and main/ipc.' }],
      }],
    },
  },
);
