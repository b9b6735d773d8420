// @ts-check
/**
 * Builds the browser console (Preact, JSX through esbuild) into dist/console: hashed files under assets/, no
 * inline script or style, so the server's Content-Security-Policy can forbid both. bin/build.js runs it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: path.join(here, '..', 'dist', 'console'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
