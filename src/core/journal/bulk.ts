/**
 * The bulk-order journal: one append-only NDJSON file per batch in
 * `<configDir>/batches/<batch_id>.ndjson` (mode 0600). The first line names the input file
 * (its path and SHA-256: the rows are read from the file itself, never copied here); then a
 * `key` line per attempt of a row, written and fsynced BEFORE the row's request is sent,
 * holding the row's reference and a digest of what was sent, and a `result` line per
 * answer; a `status` line when an order answered PENDING is followed (--wait) to a later
 * status. Re-running reads it back so no row is ever ordered twice: a row whose outcome is
 * unknown is re-sent with its same key (the server replays); only a row the server
 * definitely refused (nothing was created) gets a fresh key, journalled as the row's next
 * attempt. Beside it, `<batch_id>.refs` lists the file's references (the rows' identities),
 * so a later batch can tell which of its rows this one owns.
 * Never holds a voucher code, a pin or a secret.
 *
 * Read back (bulk-state.ts) for a run, the journal keeps in memory only what is open: a bit per ordered
 * row, the offset of its answer, and the keys and answers of rows not ordered yet. Memory
 * does not grow with the rows ordered.
 *
 * This module gives all of it: the lines (bulk-records.ts), a batch's id and paths
 * (bulk-ids.ts), the state read back (bulk-state.ts, from the file by bulk-read.ts), the journal open for appending
 * (bulk-writer.ts) and the batches of a config directory (bulk-list.ts).
 */
export * from './bulk-records.js';
export * from './bulk-ids.js';
export * from './bulk-state.js';
export * from './bulk-read.js';
export * from './bulk-writer.js';
export * from './bulk-list.js';
