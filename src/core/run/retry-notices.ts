/**
 * The run's notices of retries. A one-shot command says every retry in full. A long job
 * (a batch: `ApiClient.countRetries()`) sends many requests at once, and a server having a
 * bad minute would otherwise print a line per retry per row: there the first retry is said
 * in full, and later ones within 30 s of the last said are counted by cause and named with
 * the next one said. The count of the whole run is kept for its summary; the request log
 * has every attempt either way.
 */
import type { RetryTally } from '../http/types.js';
import { notice as writeNotice } from '../output/notice.js';
import type { ProfileClientDeps } from './profile-client.js';

const RETRY_NOTICE_EVERY_MS = 30_000;

/** `HTTP 429 ×4, HTTP 503 ×2, ECONNRESET`: the most frequent first. */
export function causesWords(byCause: ReadonlyMap<string, number>): string {
  return [...byCause]
    .sort((a, b) => b[1] - a[1])
    .map(([cause, n]) => (n === 1 ? cause : `${cause} ×${n}`))
    .join(', ');
}

function retriesWord(n: number): string {
  return n === 1 ? '1 more retry' : `${n} more retries`;
}

export interface RetryNotices {
  say(message: string, cause: string | undefined): void;
  /** From now on retries are coalesced (a long job); the tally counts every retry from here on. */
  countRetries(): RetryTally;
}

export function retryNotices(deps: Pick<ProfileClientDeps, 'io' | 'clock' | 'globals'>): RetryNotices {
  let tally: { total: number; byCause: Map<string, number> } | undefined;
  let lastSaid = -Infinity;
  let unsaid = new Map<string, number>();
  let unsaidCount = 0;
  const write = (message: string) => writeNotice(deps.io, { format: deps.globals.json ? 'json' : 'table' }, 'RETRY_WAIT', message);
  return {
    say(message, cause) {
      if (tally === undefined) return write(message);
      const what = cause ?? 'error';
      tally.total++;
      tally.byCause.set(what, (tally.byCause.get(what) ?? 0) + 1);
      const now = deps.clock.now();
      if (now - lastSaid < RETRY_NOTICE_EVERY_MS) {
        unsaidCount++;
        unsaid.set(what, (unsaid.get(what) ?? 0) + 1);
        return;
      }
      const first = lastSaid === -Infinity;
      lastSaid = now;
      const more =
        unsaidCount > 0
          ? `\n  and ${retriesWord(unsaidCount)} since the last said (${causesWords(unsaid)}), each in the request log`
          : first
            ? `\n  further retries of this run are counted and said at most every ${RETRY_NOTICE_EVERY_MS / 1000} s`
            : '';
      unsaid = new Map();
      unsaidCount = 0;
      write(`${message}${more}`);
    },
    countRetries() {
      tally ??= { total: 0, byCause: new Map() };
      return tally;
    },
  };
}
