/** Every top-level command, in the order `--help` lists them. One line a noun. */
import { registerProfiles } from './profiles/index.js';
import { registerEvents } from './events/index.js';
import { registerListen } from './listen/index.js';
import { registerWebhooks } from './webhooks/index.js';
import type { RegisterCommand } from './types.js';

export const COMMANDS: RegisterCommand[] = [
  registerProfiles,
  registerListen,
  registerEvents,
  registerWebhooks,
];
