/** Access: the credentials are accepted, this machine's address is allowed, the clocks agree. */
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { RawResponse } from '../raw.js';
import type { CheckContext, CheckDef } from '../types.js';

async function probe(ctx: CheckContext) {
  return ctx.raw.send({ method: 'GET', path: '/wallets' });
}

function describe(res: RawResponse): string {
  return `HTTP ${res.status}${res.code ? ` ${res.code}` : ''}`;
}

/** What a 404 most often means: a base URL without its /api/v1. */
function wrongBaseUrl(res: RawResponse): string {
  return res.status === 404 ? ': the base URL may be wrong (it must include /api/v1)' : '';
}

export const ACCESS_CHECKS: CheckDef[] = [
  {
    id: 'access.credentials',
    title: 'Credentials accepted',
    proves: 'The API key and secret identify the partner: a read answers 2xx, not 401.',
    async run(ctx) {
      const res = await probe(ctx);
      if (res.status === 401) {
        throw new CheckFailure(`the server refused the API key and secret (${res.code ?? 'HTTP 401'})`, {
          expected: 'HTTP 2xx to GET /wallets',
          actual: `HTTP 401 ${res.code ?? ''}`.trim(),
          reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
        });
      }
      if (res.status === 403) return { message: `credentials accepted (the 403 that came is about the address: see access.source-ip)` };
      if (res.status < 200 || res.status >= 300) {
        throw new CheckFailure(`GET /wallets answered ${describe(res)} from ${res.url}${wrongBaseUrl(res)}`, {
          expected: 'HTTP 2xx',
          actual: describe(res),
          reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
        });
      }
      return { message: `GET /wallets answered ${res.status}` };
    },
  },
  {
    id: 'access.source-ip',
    title: 'Source IP allowed',
    proves: "This machine's address is on the key's IP allowlist: no 403 IP_NOT_ALLOWED.",
    async run(ctx) {
      const res = await probe(ctx);
      if (res.status === 401)
        throw new CheckSkip('the credentials were refused first (access.credentials), so the allowlist cannot be told apart');
      if (res.status === 403) {
        throw new CheckFailure("this machine's address is not on the key's IP allowlist", {
          expected: 'no 403',
          actual: `HTTP 403 ${res.code ?? ''}`.trim(),
          reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
        });
      }
      // Only an answer the request was let through for tells the address is allowed: a 404
      // (a wrong base URL) or a server error says nothing of the allowlist.
      if (res.status < 200 || res.status >= 300) {
        throw new CheckFailure(
          `not checked: GET /wallets answered ${describe(res)} from ${res.url}, which says nothing about the allowlist${wrongBaseUrl(res)}`,
          {
            expected: 'HTTP 2xx, or 403 IP_NOT_ALLOWED',
            actual: describe(res),
            reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
          },
        );
      }
      return { message: `allowed (HTTP ${res.status})` };
    },
  },
  {
    id: 'access.clock',
    title: 'Clock within the window',
    proves: "This machine's clock is within the server's 5-minute signature window (a warning above 60 s).",
    async run(ctx) {
      const before = ctx.clock.now();
      const res = await probe(ctx);
      const after = ctx.clock.now();
      const date = res.headers.date;
      const server = date ? Date.parse(date) : NaN;
      if (Number.isNaN(server)) throw new CheckSkip('the server sent no Date header to compare the clocks with');
      // The Date header has whole seconds: compare with the middle of the round trip.
      const offset = (server - (before + after) / 2) / 1000;
      const seconds = Math.abs(Math.round(offset));
      ctx.shared.clockOffsetSeconds = offset;
      if (seconds > 300) {
        throw new CheckFailure(`this machine's clock is ${seconds} s off the server's: every signed request will be refused`, {
          expected: 'within 300 s (ideally 60 s)',
          actual: `${seconds} s ${offset > 0 ? 'behind' : 'ahead'}`,
        });
      }
      if (seconds > 60) ctx.warn(`this machine's clock is ${seconds} s off the server's: within the 300 s window, but sync it (NTP)`);
      return { message: seconds <= 1 ? 'in sync (within 1 s)' : `${seconds} s apart` };
    },
  },
];
