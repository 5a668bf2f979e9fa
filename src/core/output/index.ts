export * from './options.js';
export * from './print.js';
export * from './next-page.js';
export * from './shell-quote.js';
export * from './format.js';
export * from './spinner.js';
export * from './error.js';
