// @ts-check
/**
 * The linter: ESLint's and typescript-eslint's recommended rules, over everything we write.
 * `npm run lint` runs it with the formatter check; `npm run lint -- --fix` fixes what it can.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const node = {
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  URLSearchParams: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  setImmediate: 'readonly',
  clearImmediate: 'readonly',
  queueMicrotask: 'readonly',
  structuredClone: 'readonly',
  globalThis: 'readonly',
  performance: 'readonly',
  AbortController: 'readonly',
  AbortSignal: 'readonly',
  TextEncoder: 'readonly',
  TextDecoder: 'readonly',
  fetch: 'readonly',
  Response: 'readonly',
  Request: 'readonly',
  Headers: 'readonly',
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cache/', 'reports/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Terminal safety and header checks match control characters on purpose.
      'no-control-regex': 'off',
      // `let x; … x = …` where a closure above reads x (wired before it is made).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore names what is left out on purpose (`const { pin: _pin, ...rest }`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // Node's recursive mkdir never returns under /proc (a command given such a path spun forever).
          selector:
            "CallExpression:matches([callee.name=/^mkdir(Sync)?$/], [callee.property.name=/^mkdir(Sync)?$/]) > ObjectExpression > Property[key.name='recursive'][value.value=true]",
          message: 'mkdir { recursive: true } can hang for ever (under /proc): use makeDirSync from core/io/make-dir.ts',
        },
      ],
    },
  },
  {
    // CommonJS: the bin stub, the launcher (bundled as CommonJS, loads chunks with require), bench baselines.
    files: ['bin/**/*.js', 'bench/**/*.cjs', 'src/launch.ts'],
    languageOptions: {
      globals: { ...node, require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read answers of any shape (the point of many of them is what the server sends).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
