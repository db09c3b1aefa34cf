// The settings UI: built into web/dist and served by the service under /settings
// (src/http/settings-ui.ts). `npm start` builds it when its inputs changed (web/build.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/settings/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
});
