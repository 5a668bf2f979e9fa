/** An API answer that is an error: the code decides status and name (src/contract/errors.ts). */
import { ERRORS, type ErrorCode } from '../../contract/errors.js';

export interface ErrorDetailEntry {
  path: string;
  message: string;
}

/**
 * Errors of the sandbox's admin surface only (not of the Partner API): an operator action
 * on an order in the wrong state names that state, not the partner's cancel.
 */
export const ADMIN_ERRORS = {
  ORDER_NOT_HELD: { status: 409, name: 'OrderNotHeld' },
  ORDER_NOT_OPEN: { status: 409, name: 'OrderNotOpen' },
} as const satisfies Record<string, { status: number; name: string }>;

export type SandboxErrorCode = ErrorCode | keyof typeof ADMIN_ERRORS;

const KNOWN: Record<SandboxErrorCode, { status: number; name: string }> = { ...ERRORS, ...ADMIN_ERRORS };

export class SandboxHttpError extends Error {
  override readonly name = 'SandboxHttpError';
  readonly status: number;
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    readonly details?: ErrorDetailEntry[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = KNOWN[code].status;
  }

  envelope(): { error: { name: string; code: string; message: string; details?: ErrorDetailEntry[] } } {
    const body: { name: string; code: string; message: string; details?: ErrorDetailEntry[] } = {
      name: KNOWN[this.code].name,
      code: this.code,
      message: this.message,
    };
    if (this.details) body.details = this.details;
    return { error: body };
  }
}

export function validationFailed(details: ErrorDetailEntry[]): SandboxHttpError {
  const first = details[0];
  const summary = first ? `${first.path || 'body'}: ${first.message}` : 'the request is not valid';
  return new SandboxHttpError(
    'VALIDATION_FAILED',
    `The request is not valid (${summary}${details.length > 1 ? `, and ${details.length - 1} more` : ''}); see details`,
    details,
  );
}
