// evidence-client: a fetch-based client of the evidence service (`evidence serve`), no runtime dependencies.
export { Client, codePointSlice } from "./client.js";
export type { ClientOptions } from "./client.js";
export * from "./errors.js";
export type * from "./types.js";
