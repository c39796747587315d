import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [sveltekit()],
  // The core package is TypeScript source inside the monorepo; let Vite compile it like our own files.
  server: { fs: { allow: [".."] } },
});
