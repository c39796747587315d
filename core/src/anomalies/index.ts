export * from "./robust.ts";
export * from "./flags.ts";
