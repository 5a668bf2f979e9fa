/** Why a signature was refused; each reason comes with a message naming the likely cause. */
export type SignatureFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_mismatch'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_match'
  | 'malformed_body';

export class SignatureError extends Error {
  override readonly name = 'SignatureError';
  constructor(
    readonly reason: SignatureFailure,
    message: string,
  ) {
    super(message);
  }
}
