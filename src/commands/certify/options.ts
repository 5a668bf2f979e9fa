/** `vouchers certify` flags → options, every check that needs no network done here. */
import { parseHttpUrl } from '../../core/config/parse.js';
import { UsageError } from '../../core/errors/index.js';
import { parseDuration } from '../../core/http/duration.js';
import { planReporters, type ReporterPlan } from '../../certify/reporters/index.js';
import { matches } from '../../certify/runner.js';
import { parseProductOptions } from '../../certify/products.js';
import type { CheckDef, ProductChoice, ProductRole } from '../../certify/types.js';
import type { CertifyFlags } from './index.js';

export type { CertifyFlags };

export interface CertifyOptions {
  mode: 'sandbox' | 'profile';
  reporters: ReporterPlan;
  only: string[];
  skip: string[];
  list: boolean;
  webhookTarget?: string;
  publicUrl?: string;
  listenPort?: number;
  timeoutMs: number;
  /** The server's products by role (`--product ROLE=ID[:DENOMINATION]`). */
  products: Partial<Record<ProductRole, ProductChoice>>;
}

export const DEFAULT_CERTIFY_TIMEOUT_MS = 5 * 60_000;

function idList(text: string | undefined, flag: string, checks: readonly CheckDef[]): string[] {
  if (text === undefined) return [];
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new UsageError(`${flag} needs check ids or groups`, 'see them with vouchers certify --list');
  const unknown = ids.filter((id) => !checks.some((c) => matches(c.id, [id])));
  if (unknown.length > 0)
    throw new UsageError(
      `${flag}: no check or group ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
      'see the ids with vouchers certify --list',
    );
  return ids;
}

function httpUrl(text: string, flag: string): string {
  return parseHttpUrl(text, flag, `${flag} http://127.0.0.1:3000/webhooks`).toString();
}

export function buildOptions(flags: CertifyFlags, checks: readonly CheckDef[]): CertifyOptions {
  // --json is --reporter json (on stdout).
  const reporters = planReporters([...(flags.reporter ?? []), ...(flags.json ? ['json'] : [])], flags.out);
  let listenPort: number | undefined;
  if (flags.listenPort !== undefined) {
    listenPort = Number(flags.listenPort);
    if (!/^\d+$/.test(flags.listenPort.trim()) || listenPort < 1 || listenPort > 65535)
      throw new UsageError(`--listen-port ${JSON.stringify(flags.listenPort)} is not a port`, 'use a whole number from 1 to 65535');
  }
  return {
    mode: flags.sandbox ? 'sandbox' : 'profile',
    reporters,
    only: idList(flags.only, '--only', checks),
    skip: idList(flags.skip, '--skip', checks),
    list: Boolean(flags.list),
    webhookTarget: flags.webhookTarget === undefined ? undefined : httpUrl(flags.webhookTarget, '--webhook-target'),
    publicUrl: flags.publicUrl === undefined ? undefined : httpUrl(flags.publicUrl, '--public-url'),
    listenPort,
    products: parseProductOptions(flags.product ?? []),
    timeoutMs: flags.timeout === undefined ? DEFAULT_CERTIFY_TIMEOUT_MS : parseDuration(flags.timeout, '--timeout'),
  };
}
