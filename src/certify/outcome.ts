/** How a check ends other than by passing: a failure with expected/actual, or a skip with its reason. */

export interface FailureDetails {
  expected?: string;
  actual?: string;
  /** A command that repeats the request, e.g. `vouchers api POST /orders -d '…'` (never a secret). */
  reproduce?: string;
}

/** The server did not do what the check proves. */
export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly details: FailureDetails = {},
  ) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/** The check could not run here (a need not met, a fixture missing), with the reason. */
export class CheckSkip extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckSkip';
  }
}

/** Fail unless `ok`, with what was expected and what came. */
export function expectThat(ok: boolean, message: string, details: FailureDetails = {}): asserts ok {
  if (!ok) throw new CheckFailure(message, details);
}
