/**
 * Every top-level command, in the order `--help` lists them. One entry a noun: its name and
 * summary are static, so the root help needs no imports; the noun's module is loaded only
 * when it is invoked (see program.ts).
 */
import type { RegisterCommand } from './types.js';

export interface NounEntry {
  name: string;
  summary: string;
  load: () => Promise<RegisterCommand>;
  /** This noun reads the whole command tree (completion): load every noun with it. */
  needsAll?: boolean;
  /** Other top-level (hidden) commands the module registers. */
  also?: string[];
}

export const COMMANDS: NounEntry[] = [
  {
    name: 'demo',
    summary: 'Walk through the whole API flow against an embedded sandbox (a few seconds)',
    load: async () => (await import('./demo/index.js')).registerDemo,
  },
  {
    name: 'profiles',
    summary: 'Saved profiles: base URL, credentials, webhook secret, limits',
    load: async () => (await import('./profiles/index.js')).registerProfiles,
  },
  {
    name: 'certify',
    summary: 'Run the sandbox certification checklist and report it (pretty, JSON, JUnit, markdown)',
    load: async () => (await import('./certify/index.js')).registerCertify,
  },
  {
    name: 'doctor',
    summary: 'Check that this machine can call the API, with a fix for each problem',
    load: async () => (await import('./doctor/index.js')).registerDoctor,
  },
  {
    name: 'listen',
    summary: 'Receive, verify, store and forward webhook deliveries locally',
    load: async () => (await import('./listen/index.js')).registerListen,
  },
  {
    name: 'events',
    summary: 'Read the local event inbox; replay an event to your app',
    load: async () => (await import('./events/index.js')).registerEvents,
  },
  {
    name: 'webhooks',
    summary: 'Register the webhook endpoint; verify or sign a delivery offline',
    load: async () => (await import('./webhooks/index.js')).registerWebhooks,
  },
  {
    name: 'categories',
    summary: 'Product categories open to your organisation',
    load: async () => (await import('./categories/index.js')).registerCategories,
  },
  {
    name: 'products',
    summary: 'Browse the catalog: products, denominations, availability, expiry',
    load: async () => (await import('./products/index.js')).registerProducts,
  },
  {
    name: 'wallets',
    summary: 'Wallet balances per settlement currency',
    load: async () => (await import('./wallets/index.js')).registerWallets,
  },
  {
    name: 'orders',
    summary: 'Place, follow, list and cancel orders; fetch voucher codes',
    load: async () => (await import('./orders/index.js')).registerOrders,
  },
  {
    name: 'transactions',
    summary: 'Wallet transaction history',
    load: async () => (await import('./transactions/index.js')).registerTransactions,
  },
  {
    name: 'payouts',
    summary: 'Withdraw wallet funds to your account on file',
    load: async () => (await import('./payouts/index.js')).registerPayouts,
  },
  {
    name: 'reconciliation',
    summary: '[experimental] Daily reconciliation report (planned API)',
    load: async () => (await import('./reconciliation/index.js')).registerReconciliation,
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: async () => (await import('./completion/index.js')).registerCompletion,
    needsAll: true,
    also: ['__complete'],
  },
  {
    name: 'api',
    summary: 'Call any endpoint with a signed request (like gh api)',
    load: async () => (await import('./api/index.js')).registerApi,
  },
  {
    name: 'sign',
    summary: 'Print the headers and string-to-sign the CLI would send (offline)',
    load: async () => (await import('./sign/index.js')).registerSign,
  },
  { name: 'log', summary: 'The local log of API requests, with trace IDs', load: async () => (await import('./log/index.js')).registerLog },
  {
    name: 'sandbox',
    summary: 'Run and drive the local sandbox: start, stop, status, admin, trigger',
    load: async () => (await import('./sandbox/index.js')).registerSandbox,
  },
];
