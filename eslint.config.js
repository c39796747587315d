// `npm run lint`: the type-aware rules that catch what tests miss (a promise nobody awaits loses its error;
// an unused binding is usually a forgotten step). Formatting is not linted.
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "**/dist/**", "**/build/**", "**/.svelte-kit/**", "**/.svc-data/**", "bench/k6/**", "**/*.js", "**/*.mjs", "**/*.cjs"],
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // Node 20 defines the globals `Buffer` and `performance` as accessors: every read of one in the gateway's code
    // called a getter (`LoadGlobalIC` under the site lane's turn in a perf profile). Imported, they are a module
    // binding: `npm run bench:event-path -- --instructions` counted 0.35 % fewer instructions a row, in both of its
    // windows (gateway/README.md "Twelfth pass").
    files: ["gateway/src/**/*.ts", "core/src/**/*.ts"],
    rules: {
      "no-restricted-globals": [
        "error",
        { name: "Buffer", message: 'import { Buffer } from "node:buffer": the global is an accessor, a getter call on every read' },
        { name: "performance", message: 'import { performance } from "node:perf_hooks": the global is an accessor, a getter call on every read' },
      ],
    },
  },
);
