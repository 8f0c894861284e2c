// Limits of one call that are the TypeScript layer's own (the Rust core owns its limits).

/** Most items one bulk call (`upsertMany`, `appendMany`, ...) takes: a batch is one transaction, held in memory whole. */
export const MAX_BATCH = 1_000_000;

/** Most records or entries one page of `log.page({ limit })` or `map.page({ limit })` holds: a page is read into memory whole. */
export const MAX_PAGE_LIMIT = 10_000;
