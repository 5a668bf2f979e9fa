import * as z from 'zod';
import { Timestamp, WebhookId } from './common.js';
import { EventType } from './events.js';

export const RegisterWebhookRequest = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }).meta({ description: 'https, or http to a loopback host in the sandbox' }),
    events: z.array(EventType).min(1).optional().meta({ description: 'Event types to deliver (default: all)' }),
    description: z.string().max(256, 'must be at most 256 characters').optional(),
    rotate_secret: z.boolean().optional().meta({ description: 'Issue a new signing secret; the old one stays valid during the rotation' }),
  })
  .meta({ id: 'RegisterWebhookRequest' });
export type RegisterWebhookRequest = z.infer<typeof RegisterWebhookRequest>;

export const WebhookEndpoint = z
  .looseObject({
    webhook_id: WebhookId,
    url: z.string(),
    events: z.array(EventType),
    description: z.string().nullable().optional(),
    created_at: Timestamp,
    updated_at: Timestamp,
    signing_secret: z.string().startsWith('whsec_').optional().meta({ description: 'Only on creation or when rotate_secret was true' }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;
