/** Fresh credentials: API keys, secrets, admin tokens and webhook secrets (never seeded). */
import { randomBytes } from 'node:crypto';

export function newApiKey(): string {
  return `vk_test_${randomBytes(12).toString('hex')}`;
}

export function newApiSecret(): string {
  return `vs_test_${randomBytes(24).toString('hex')}`;
}

export function newAdminToken(): string {
  return `adm_${randomBytes(20).toString('hex')}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
