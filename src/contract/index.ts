/** The contract as code: one source of truth for the CLI, the sandbox, the docs and OpenAPI. */
export * from './common.js';
export * from './catalog.js';
export * from './orders.js';
export * from './money.js';
export * from './webhooks.js';
export * from './events.js';
export * from './reconciliation.js';
export * from './errors.js';
export * from './routes.js';
export * from './endpoints.js';
export * from './money-format.js';
