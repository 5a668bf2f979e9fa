/** Parsing of the flags `listen` and `events replay` share, with messages that say what to fix. */
import { UsageError } from '../core/errors/index.js';

/** `--forward-to`: an http(s) URL. */
export function parseForwardUrl(value: string, flag = '--forward-to'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a URL`, `give a full URL, e.g. ${flag} http://localhost:3000/webhooks`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} must be an http or https URL, not ${url.protocol}`, `e.g. ${flag} http://localhost:3000/webhooks`);
  }
  return url;
}

/** `--forward-header K:V` (repeatable) → header map. */
export function parseHeaderFlags(
  values: readonly string[] | undefined,
  flag = '--forward-header',
  example = 'Authorization: Bearer dev-token',
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of values ?? []) {
    const [name, value] = headerLine(raw) ?? [];
    if (name === undefined || value === undefined)
      throw new UsageError(`${flag} ${JSON.stringify(raw)} is not "Name: value"`, `e.g. ${flag} "${example}"`);
    headers[name] = value;
  }
  return headers;
}

/** A `Name: value` header line as its name in lower case and its value trimmed; undefined when it is not one. */
export function headerLine(raw: string): [name: string, value: string] | undefined {
  const colon = raw.indexOf(':');
  const name = colon > 0 ? raw.slice(0, colon).trim() : '';
  if (!name || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined;
  return [name.toLowerCase(), raw.slice(colon + 1).trim()];
}

/** A non-negative integer flag within bounds. */
export function parseIntFlag(value: unknown, flag: string, min: number, max: number): number {
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} ${JSON.stringify(String(value))} must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/** Secrets from a repeatable `--secret`; empty values are an error, not "no secret". */
export function parseSecretFlags(values: readonly string[] | undefined): string[] | undefined {
  if (!values || values.length === 0) return undefined;
  if (values.some((s) => !s.trim())) throw new UsageError('--secret is empty', "pass the endpoint's signing secret, e.g. --secret whsec_…");
  return values.map((s) => s.trim());
}
