/**
 * The commands a listener prints to be run after it: `vouchers listen …` to start one again
 * where it ran, and `events replay …` to forward by hand what it did not. Each repeats the
 * options that make the app get what this listener would have sent it (--forward-to, and
 * --forward-retries, --forward-timeout where not the defaults), built here only so that no
 * two of them differ. A credential is never repeated: a --forward-to or --public-url holding
 * one is left out, and the --forward-header values (one may be a token) always are; the
 * note of leftOut names what to add.
 */
import { appUrlForCommand } from '../../core/config/base-url.js';
import type { Factory } from '../../core/run/factory.js';
import { suggestedCommand, type HintFlag } from '../../core/output/next-page.js';
import { DEFAULT_FORWARD_POLICY } from '../../listener/forward.js';
import type { ListenOptions } from './listen.js';

/** The defaults of --port, --host and --path (as the command's options give them). */
export const DEFAULT_LISTEN_PORT = '4242';
export const DEFAULT_LISTEN_HOST = '127.0.0.1';
export const DEFAULT_LISTEN_PATH = '/webhooks';

/** What of the listener's forwarding a command needs: its options, and the URL it forwards to. */
type Forwarding = Pick<ListenOptions, 'forwardTo' | 'forwardHeaders' | 'forwardPolicy'>;

/** --forward-to as a command may repeat it: undefined without one, or when it holds a credential. */
function forwardToForCommand(o: Forwarding): string | undefined {
  return o.forwardTo === undefined ? undefined : appUrlForCommand(o.forwardTo.toString());
}

/**
 * --forward-to, and --forward-timeout (with --forward-retries for a listener, which replay
 * has not) where not the defaults. Without --forward-to in the command (a URL with a
 * credential), its retries and timeout neither: they would go with the URL added by hand.
 */
function forwardFlags(o: Forwarding, retries: boolean): HintFlag[] {
  const forwardTo = forwardToForCommand(o);
  const forwarding = forwardTo !== undefined;
  const policy = o.forwardPolicy;
  return [
    ['--forward-to', forwardTo],
    [
      '--forward-retries',
      retries && forwarding && policy.maxRetries !== DEFAULT_FORWARD_POLICY.maxRetries ? String(policy.maxRetries) : undefined,
    ],
    [
      '--forward-timeout',
      forwarding && policy.timeoutMs !== DEFAULT_FORWARD_POLICY.timeoutMs ? String(policy.timeoutMs / 1000) : undefined,
    ],
  ];
}

/**
 * `vouchers listen` where this listener ran: its port (the one it bound, for --port 0),
 * address and path where not the defaults, so that an endpoint left pointing here reaches
 * it again; with `register`, --register and its --public-url; its --events, forward
 * options and --inbox, so that what it receives goes where this one's went.
 */
export function listenAgainCommand(f: Factory, o: ListenOptions, url: string, register: boolean): string {
  const { port } = new URL(url);
  return (
    suggestedCommand(
      f.globals(),
      ['listen'],
      [
        ['--register', register],
        ['--port', port !== '' && port !== DEFAULT_LISTEN_PORT ? port : undefined],
        ['--host', o.host !== DEFAULT_LISTEN_HOST ? o.host : undefined],
        ['--path', o.path !== DEFAULT_LISTEN_PATH ? o.path : undefined],
        ['--public-url', register && o.publicUrl !== undefined ? appUrlForCommand(o.publicUrl) : undefined],
        ['--events', o.events],
        ...forwardFlags(o, true),
        ['--inbox', o.inbox],
      ],
    ) + leftOut(o, register ? o.publicUrl : undefined)
  );
}

/**
 * `events replay` with these words and flags (`before`, then the forward options and
 * --inbox, then `after`), forwarding as the listener did; no --secret: replay reads it
 * where the listener did.
 */
export function replayCommand(
  f: Factory,
  o: Forwarding & Pick<ListenOptions, 'inbox'>,
  command: Parameters<typeof suggestedCommand>[1],
  before: HintFlag[],
  after: HintFlag[] = [],
): string {
  return suggestedCommand(
    f.globals(),
    ['events', 'replay', ...command],
    [...before, ...forwardFlags(o, false), ['--inbox', o.inbox], ...after],
  );
}

/**
 * What a command of this module leaves out, for the user to add: a --public-url or
 * --forward-to whose URL carries a credential (with the forward options that go with it),
 * and the --forward-header names, their values left out.
 */
function leftOutParts(o: Forwarding, publicUrl?: string): string[] {
  const parts: string[] = [];
  if (publicUrl !== undefined && appUrlForCommand(publicUrl) === undefined)
    parts.push('add --public-url with the URL this listener registered: left out here, as it holds a credential');
  if (o.forwardTo !== undefined && forwardToForCommand(o) === undefined)
    parts.push(
      'add --forward-to with the URL this listener forwarded to, and its other --forward-… options: left out here, as the URL holds a credential',
    );
  const names = o.forwardTo === undefined ? [] : Object.keys(o.forwardHeaders);
  if (names.length > 0)
    parts.push(
      `add --forward-header for ${names.join(', ')} as this listener had ${names.length === 1 ? 'it' : 'them'}: ${names.length === 1 ? 'its value is' : 'their values are'} left out here`,
    );
  return parts;
}

/** What the command before it leaves out, in brackets after it; '' when nothing is. */
function leftOut(o: Forwarding, publicUrl?: string): string {
  const parts = leftOutParts(o, publicUrl);
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/** What the replay commands above it leave out, as a line of its own; '' when nothing is. */
export function leftOutOfReplays(o: Forwarding): string {
  const parts = leftOutParts(o);
  return parts.length === 0 ? '' : `In each command above: ${parts.join('; ')}.\n`;
}
