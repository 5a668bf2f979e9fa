/** One line of the request log: never a body, a secret or a code. */
export interface RequestLogEntry {
  time: string;
  profile: string;
  method: string;
  path: string;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  duration_ms: number;
  attempt: number;
  trace_id: string | null;
  idempotency_key: string | null;
  error_code: string | null;
  /**
   * On a write answered 2xx: the order or payout its answer named (the one it created, or
   * acted on), and that answer's reference (the partner's own id), as the answer held them
   * (answer-ids.ts). Absent when the answer named none, on every other line, and in lines
   * logged before the CLI recorded them.
   */
  order_id?: string;
  payout_id?: string;
  reference?: string;
  /** The CLI's own probe (doctor, the check behind a 404), not a request the user made; absent otherwise. */
  probe?: boolean;
  /**
   * The server or API key the request went to when it was not the profile's own: given by
   * the environment (VOUCHERS_BASE_URL, VOUCHERS_API_KEY) or a flag (--base-url). A retry
   * of the write must go to the same one, which `--profile` alone does not. Absent otherwise.
   */
  set_by?: RequestTarget;
  /**
   * The idempotency key was given to the command (--idempotency-key), not made for this
   * request: it may have been used before this line. Absent otherwise.
   */
  key_given?: true;
  /**
   * On a 2xx answer: the command that sent the write prints this answer and then logs that
   * it did (`RequestLog.shown`); until that line is found, `read` marks the entry
   * `answer_not_shown`. Set by one-shot writes that create something that costs money
   * (orders create, payouts create, vouchers api POST /orders or /payouts). Absent
   * otherwise, and in lines logged before the CLI wrote it: those are never so marked.
   * In the file only: `read` leaves it out, and says `answer_not_shown` instead when due.
   */
  shows_answer?: true;
  /**
   * Read only: a write answered 2xx whose command logged no `shown` line for it (killed,
   * or its output closed, between the answer and printing it), nor did a later command
   * that was answered with the same idempotency key within the 24 hours the server keeps
   * it (a replay). Done by the server, never seen by the user. Absent otherwise.
   */
  answer_not_shown?: true;
  /**
   * The attempt failed before its request left the machine (connection refused, no route,
   * a name not resolved, a TLS handshake refused): the server cannot have acted on it, so
   * a keyed write so ended is failed, never without an answer. Absent otherwise.
   */
  not_sent?: true;
  /**
   * Read only: a keyed write logged as it was sent (`RequestLog.sending`) with no answer
   * recorded (the process was killed, or is still waiting), or stopped in flight
   * (INTERRUPTED: Ctrl-C, SIGTERM, SIGHUP). Absent otherwise.
   */
  unanswered?: true;
  /**
   * Read only, with `unanswered`: the time of a later 2xx answer to the same idempotency key
   * (a retry with that key, which the server replayed or placed). Absent otherwise.
   */
  answered_by_retry?: string;
  /**
   * Read only, with `unanswered` or `answer_not_shown`: when the same idempotency key (profile, method, path) was
   * first logged, when before this attempt. The server keeps a key 24 hours from its first
   * use, not from this attempt. Absent otherwise.
   */
  key_first_sent?: string;
  /**
   * Read only, with `unanswered` or `answer_not_shown`: the key's first logged use was with a key given to the
   * command, and the log no longer reaches back 24 hours before it (an earlier part of the
   * log was dropped to keep it bounded): the key may have been used earlier, so how long the
   * server still keeps it is unknown. Absent otherwise.
   */
  key_first_unknown?: true;
}

/** Where the base URL and API key of a request came from, when not from its profile. */
export interface RequestTarget {
  base_url?: 'env' | 'flag';
  api_key?: 'env';
}

export interface RequestLog {
  readonly path: string;
  /**
   * `sent`: the request's query string (`?a=1`, or '') and body as sent, for a log that
   * keeps them (the file log does not: bodies and filters stay out of it).
   */
  append(entry: RequestLogEntry, sent?: { query: string; body?: string }): void;
  /**
   * A keyed write about to be sent: a line marked `sending`, written before the request
   * leaves, so a process killed before the answer (kill -9, a job timeout) leaves its
   * idempotency key in the log. The attempt's `append` completes it: `read` then returns
   * the answered line alone. Same fields as that line (status null, duration 0).
   */
  sending?(entry: RequestLogEntry): void;
  /**
   * The 2xx answer logged as `entry` (a line with `shows_answer`) has been printed, and the
   * output flushed: a line naming that attempt (time, profile, method, path, attempt and
   * key), which `read` pairs with it and returns nothing for.
   */
  shown?(entry: RequestLogEntry): void;
  /** Newest last; `where` (and `failedOnly`) apply before `limit`. */
  read(options?: { failedOnly?: boolean; where?: (entry: RequestLogEntry) => boolean; limit?: number }): Promise<RequestLogEntry[]>;
  /**
   * Be told when writing the log fails: once for the log, and once more for each idempotency
   * key (`unlogged`) a request is sent with that the log could not keep (`again`: the log was
   * said to fail before). `append` never throws: a failing log must not fail a command.
   */
  onError?(handler: (error: Error, unlogged: string | undefined, again: boolean) => void): void;
}
