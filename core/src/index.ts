export * from "./types.ts";
export * from "./classify/index.ts";
export * from "./classify/rule-labels.ts";
export * from "./schema/index.ts";
export * from "./traffic/index.ts";
export * from "./device/index.ts";
export * from "./visitor-hash.ts";
export * from "./manifest.ts";
