// undici's internal files the transport loads (see undici.ts); they ship without types.
declare module 'undici/lib/dispatcher/agent.js';
declare module 'undici/lib/api/api-request.js';
declare module 'undici/lib/dispatcher/dispatcher.js';
