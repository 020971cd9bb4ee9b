import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code is replayed by Temporal and must stay deterministic: no Node built-ins and no I/O libraries.
const ioLibraries = [
  'pg', 'knex', 'objection', 'pgvector', 'koa', 'koa-body', '@koa/router', 'pino', 'pino-pretty', 'stripe',
  '@electric-sql/*', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'ajv', 'ajv-formats',
];
const workflowForbidden = [
  ...builtinModules.flatMap((name) => [name, `node:${name}`]),
  ...ioLibraries,
];

// Engines and the dialogue core sit below the HTTP resources, the API kit and the roles (DESIGN section 3).
const workflowsByName = { group: ['**/workflows/*', '**/workflows'], allowTypeImports: true, message: 'Start workflows by name (src/temporal/starters.ts); import their types only.' };
// The engines of DESIGN section 3, those of the voice wave included before their folders exist.
const engineFolders = ['src/knowledge/**', 'src/billing/**', 'src/campaigns/**', 'src/webhooks/**'];
const engineImports = [
  workflowsByName,
  { group: ['**/resources/**', '**/api/**', '**/voice/**', '**/roles/**'], message: 'Engines import nothing from resources/, api/, voice/ or roles/ (DESIGN section 3).' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', '.tools/**', 'coverage/**', 'test-results/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The widget is a plain browser script: no types, no Node.
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      sourceType: 'script',
      globals: {
        window: 'readonly', document: 'readonly', localStorage: 'readonly', fetch: 'readonly', console: 'readonly', TextDecoder: 'readonly', URL: 'readonly',
        navigator: 'readonly', crypto: 'readonly', Blob: 'readonly', btoa: 'readonly', atob: 'readonly', WebSocket: 'readonly', AudioContext: 'readonly', AudioWorkletNode: 'readonly', setTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', URLSearchParams: 'readonly',
      },
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: workflowForbidden.filter((name) => !name.includes('*')).map((name) => ({
          name,
          message: 'Workflow code must be deterministic: do side effects in activities/.',
        })),
        patterns: [{ group: workflowForbidden.filter((name) => name.includes('*')), message: 'Workflow code must be deterministic: do side effects in activities/.' }],
      }],
    },
  },
  {
    // The API process starts workflows by name and never loads their code: types only (DESIGN section 3).
    files: ['src/**/*.ts'],
    ignores: [...engineFolders, 'src/agent/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [workflowsByName] }],
    },
  },
  {
    // Engines take data and ports, never requests.
    files: engineFolders,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: engineImports }],
    },
  },
  {
    // Providers are adapters below every engine: they share only the low-level helpers of lib/ (audio codecs
    // included), never the voice engine's code.
    files: ['src/providers/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          workflowsByName,
          { group: ['**/voice/**', '**/agent/**', '**/resources/**', '**/api/**', '**/roles/**', ...engineFolders.map((folder) => folder.replace('src/', '**/'))], message: 'Providers import nothing from the engines, resources/, api/ or roles/; shared helpers live in lib/ (DESIGN section 3).' },
        ],
      }],
    },
  },
  {
    // The voice engine sits on the dialogue core and the providers; requests, the API kit and roles stay above it.
    files: ['src/voice/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          workflowsByName,
          { group: ['**/resources/**', '**/api/**', '**/roles/**'], message: 'The voice engine imports nothing from resources/, api/ or roles/ (DESIGN section 3).' },
        ],
      }],
    },
  },
  {
    // The dialogue core, like an engine, and more: retrieval reaches it as a port, providers as their types.
    files: ['src/agent/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          ...engineImports,
          { group: ['**/knowledge/**'], message: 'The dialogue core searches knowledge through its searchKnowledge port (agent/ports.ts).' },
          { group: ['**/providers/*.ts', '**/providers/*/*', '!**/providers/*/types.ts'], allowTypeImports: true, message: 'The dialogue core takes providers as ports: import their types only.' },
        ],
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests read JSON responses whose shape each assertion states.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
