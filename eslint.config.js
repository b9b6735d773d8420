// @ts-check
/**
 * The linter: typescript-eslint with type information and a few rules that
 * catch real bugs (a promise nobody awaits or handles, a promise where a
 * callback's return is ignored, `any` in lib/, a control character in a
 * regular expression), plus type-only imports spelled as such. Formatting is Prettier's job (.prettierrc.json), not the
 * linter's. `npm run lint` runs both; CI runs it.
 */
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  {
    files: ['lib/**/*.ts', 'spec/**/*.ts', 'bench/**/*.ts', 'console/src/**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'error',
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
