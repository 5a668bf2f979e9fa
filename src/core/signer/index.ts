export * from './errors.js';
export * from './hmac.js';
export * from './request.js';
export * from './webhook.js';
