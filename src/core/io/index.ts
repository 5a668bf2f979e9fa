export * from './io.js';
