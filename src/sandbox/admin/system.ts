/** Admin: overview, the sandbox clock (advance runs what becomes due), reset to the seed. */
import { jsonReply } from '../http/respond.js';
import type { AdminRoute } from './context.js';
import { AdvanceBody, EmptyBody } from './schemas.js';

function clockView(now: number, offsetMs: number) {
  return { now: new Date(now).toISOString(), offset_ms: offsetMs };
}

export const SYSTEM_ROUTES: AdminRoute[] = [
  {
    method: 'GET',
    path: '/',
    handler: ({ rt, svc }) =>
      jsonReply(200, {
        partner_id: svc.credentials().partnerId,
        api_key: svc.credentials().apiKey,
        seed: rt.state.seed,
        time_scale: rt.config.timeScale,
        signing_path: rt.config.signingPath,
        dialect: rt.config.dialect,
        enable_planned: rt.config.enablePlanned,
        fault_rate: rt.config.faultRate,
        limits: rt.config.limits,
        clock: clockView(rt.clock.now(), rt.clock.offsetMs),
        counts: {
          partners: Object.keys(rt.state.partners).length,
          orders: Object.keys(rt.state.orders).length,
          events: rt.state.events.length,
          deliveries: Object.keys(rt.state.deliveries).length,
        },
      }),
  },
  { method: 'GET', path: '/clock', handler: ({ rt }) => jsonReply(200, clockView(rt.clock.now(), rt.clock.offsetMs)) },
  {
    method: 'POST',
    path: '/clock/advance',
    body: AdvanceBody,
    handler: ({ rt, svc, body }) => {
      svc.advance(Math.round((body as { seconds: number }).seconds * 1000));
      rt.changed();
      return jsonReply(200, clockView(rt.clock.now(), rt.clock.offsetMs));
    },
  },
  {
    method: 'POST',
    path: '/reset',
    body: EmptyBody,
    handler: ({ svc }) => {
      svc.reset();
      const rt = svc.rt();
      return jsonReply(200, {
        reset: true,
        partner_id: svc.credentials().partnerId,
        api_key: svc.credentials().apiKey,
        clock: clockView(rt.clock.now(), rt.clock.offsetMs),
      });
    },
  },
];
