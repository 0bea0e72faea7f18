// @ts-check
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'examples/**', 'evals/**', '.cache/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    // The programs a check runs inside the project's own tools (src/core/verify/staged/programs) are
    // CommonJS where the tool requires them (Jest's runner, mocha's --require, the tsc worker).
    files: ['src/**/programs/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The engine stays host-free: VS Code is reached only through ports implemented in src/vscode.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not import vscode; add a port and implement it in src/vscode.' }],
      }],
    },
  },
);
