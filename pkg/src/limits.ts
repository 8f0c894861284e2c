// Limits of one call that are the TypeScript layer's own (the Rust core owns its limits).

/** Most items one bulk call (`upsertMany`, `appendMany`, ...) takes: a batch is one transaction, held in memory whole. */
export const MAX_BATCH = 1_000_000;
