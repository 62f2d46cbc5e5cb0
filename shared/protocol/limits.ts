/** Limits both sides check, so the client can refuse early what the server would refuse. */

export const maxTitleLength = 200;

/** How long a document stays in the trash, restorable, before it is purged (CAT3). */
export const trashRetentionDays = 30;
export const trashRetentionMs = trashRetentionDays * 24 * 60 * 60 * 1000;

/** Markdown or HTML given when a document is created, in UTF-8 bytes. */
export const maxSourceBytes = 1_000_000;

/** Any JSON request body, in bytes (1 MiB). */
export const maxBodyBytes = 1024 * 1024;

/** The quoted text an annotation keeps of what it was pinned to, in characters. */
export const maxQuoteLength = 2_000;
