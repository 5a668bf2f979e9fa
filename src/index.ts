/**
 * The library entry of the `vouchers` package: verify webhooks and sign requests exactly
 * as the CLI does.
 */
export {
  verifyWebhook,
  verifyWebhookDelivery,
  verifyWebhookSignature,
  signWebhook,
  webhookSignature,
  WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_HEADERS,
  signRequest,
  verifyRequest,
  signingPath,
  requestMessage,
  REQUEST_TOLERANCE_SECONDS,
  SignatureError,
} from './core/signer/index.js';
export type {
  SignatureFailure,
  VerifyWebhookOptions,
  HeaderBag,
  RequestToSign,
  RequestSignature,
  SigningPathVariant,
} from './core/signer/index.js';
export type {
  EventEnvelope,
  EventType,
  Order,
  OrderVoucher,
  Product,
  ProductDetail,
  Wallet,
  Transaction,
  WebhookEndpoint,
} from './contract/index.js';
