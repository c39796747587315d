#!/usr/bin/env node
// The `svc-mcp` command: runs the TypeScript entry point through tsx's loader, as the repository's other
// commands do (npm run svc), so a fresh clone needs no build step before an MCP client can start it.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
