/** Every top-level command, in the order `--help` lists them. One line a noun. */
import { registerProfiles } from './profiles/index.js';
import { registerDoctor } from './doctor/index.js';
import { registerEvents } from './events/index.js';
import { registerListen } from './listen/index.js';
import { registerWebhooks } from './webhooks/index.js';
import { registerCategories } from './categories/index.js';
import { registerProducts } from './products/index.js';
import { registerWallets } from './wallets/index.js';
import { registerTransactions } from './transactions/index.js';
import { registerOrders } from './orders/index.js';
import { registerPayouts } from './payouts/index.js';
import { registerReconciliation } from './reconciliation/index.js';
import { registerCompletion } from './completion/index.js';
import { registerApi } from './api/index.js';
import { registerSign } from './sign/index.js';
import { registerLog } from './log/index.js';
import type { RegisterCommand } from './types.js';

export const COMMANDS: RegisterCommand[] = [
  registerProfiles,
  registerDoctor,
  registerListen,
  registerEvents,
  registerWebhooks,
  registerCategories,
  registerProducts,
  registerWallets,
  registerOrders,
  registerTransactions,
  registerPayouts,
  registerReconciliation,
  registerCompletion,
  registerApi,
  registerSign,
  registerLog,
];
