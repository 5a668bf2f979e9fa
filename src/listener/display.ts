/**
 * What `vouchers listen` prints: one line per event (time, type, event id, order id,
 * status, and the first forward result when it comes within a moment), later forward
 * results on their own lines, rejections on stderr; or NDJSON with `--json`, one
 * object per line with a `kind` of `event`, `duplicate`, `forward` or `rejected`.
 *
 * An event whose type this version does not know, or that differs from the contract, is
 * marked on its line (`unknown_event_type`, `drift` with --json) and explained by a warning
 * on stderr naming its id and the fields: it was accepted and stored as received. So is a
 * delivery of a stored event id with another body (`body_differs_from_first`): stored too.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { ForwardRecord } from '../core/journal/forward-log.js';
import { bodyNumberOf, differsFromFirst, driftOf, isUnknownType, type InboxEntry } from '../core/journal/inbox.js';
import { batchedOutput } from '../core/io/batched-output.js';
import { asciiText } from '../core/io/ascii.js';
import { asciiOnly, stderrColumns, type IO } from '../core/io/io.js';
import { wrapNote } from '../core/io/note-wrap.js';
import { styleStatus } from '../core/output/format.js';
import { describeForward, describeForwardShort, describeForwardShortest } from './forward.js';
import { displayText, escapeText, payloadId } from '../core/output/printable.js';
import { jsonLine } from '../core/output/json-text.js';
import { suggestedCommand } from '../core/output/next-page.js';
import { operand } from '../core/output/shell-quote.js';
import { cellWidth } from '../core/output/cells.js';
import { codeFieldsIn, redactCodes } from './redact.js';
import { fitLine, type LinePiece } from './fit-line.js';
import type { ListenerActivity } from './server.js';

export interface DisplayOptions {
  json: boolean;
  /**
   * Forwarding is on: on a terminal the event line waits this long for the first forward
   * result so both fit on one line (later attempts get their own lines).
   */
  forwardWaitMs?: number;
  /** Colour on stdout (TTY only). */
  color: boolean;
  /** Colour on stderr (TTY only). */
  colorErr: boolean;
  /** The command that shows a stored event (`vouchers events show <id>`, with the listener's --inbox and root options). */
  showCommand?: (eventId: string) => string;
  /**
   * On a terminal, its width now (it may be resized while listening): each line is fitted
   * to it (fit-line.ts). Undefined: lines are printed whole, as a pipe wants them.
   */
  width?: () => number;
}

export interface Display {
  activity(a: ListenerActivity): void;
  forward(record: ForwardRecord): void;
  /** Write the lines queued for this turn of the event loop now (before a message of one's own). */
  writeQueued(): void;
  /** Print event lines still waiting for a forward result, and write all queued output. */
  flush(): void;
}

function clock(iso: string): string {
  return iso.slice(11, 19);
}

/**
 * A payload string fit for a terminal line: printable ASCII without spaces, or nothing
 * (the payload of an event type this version does not know is unchecked).
 */
function str(v: unknown): string {
  return typeof v === 'string' && /^[\x21-\x7e]{1,100}$/.test(v) ? v : '';
}

/** The summary fields of a stored event. */
export function eventSummary(entry: Pick<InboxEntry, 'received_at' | 'envelope'>): Record<string, unknown> {
  const data = entry.envelope.data ?? {};
  return {
    received_at: entry.received_at,
    event: entry.envelope.event,
    event_id: entry.envelope.event_id,
    order_id: str(payloadId(data.order_id)) || null,
    status: str(data.status) || null,
  };
}

/** The marker of an event whose type this version does not know. */
export const UNKNOWN_TYPE_MARK = '(unknown event type)';
/** The marker of an event that differs from the contract. */
export const DRIFT_MARK = '(differs from contract)';
/** The marker of a delivery of a stored event id with another body: which body it is (what `--body` takes). */
export function otherBodyMark(bodyNumber: number): string {
  return `(another body than the first: body ${bodyNumber})`;
}

/** Differences named in a warning line; the rest are counted (all are in `events show`). */
const DRIFT_SHOWN = 5;

/** Cells an id is cut to at least on a narrow terminal. */
const ID_MIN = 13;
/** Cells of an error's free text a forward result keeps at least, its ellipsis included. */
const ERROR_MIN = 4;

/**
 * What a refusal's message says is wrong: its text up to the first `;`, `:` or `.` that ends
 * a clause (followed by a space), never inside parentheses or a quoted value, nor the dot of
 * an abbreviation (`e.g.`, `i.e.`). The whole message when none does.
 */
function firstClause(message: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < message.length - 1; i++) {
    const c = message[i]!;
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (
      depth === 0 &&
      message[i + 1] === ' ' &&
      (c === ';' || c === ':' || (c === '.' && !/(?:^|[\s(.])[A-Za-z]$/.test(message.slice(0, i))))
    )
      return message.slice(0, i);
  }
  return message;
}

/** The short forms of the marks, on a terminal too narrow for the others. */
const SHORT_MARKS = { unknown: '(unknown type)', drift: '(differs)', otherBody: (n: number) => `(body ${n})` };

/**
 * The pieces of an event's line, for fitLine: on a narrow terminal the status goes first
 * (its event type mostly says it), then the order id (events show has it), then the
 * padding lining up the event ids; marks take their short form, a forward result too (what
 * became of it first), then without the time the answer took; the error text of a forward
 * result is cut at its end, then the event id in its middle; then the forward result says
 * only what became of it; then the time goes, then the event id (events list has it), the
 * time back if it fits then; last, the forward result leaves out its attempts or its
 * status. An event type, like a status, and a number are never cut.
 */
function eventPieces(c: ChalkInstance, entry: Pick<InboxEntry, 'received_at' | 'envelope' | 'meta'>): LinePiece[] {
  const data = entry.envelope.data ?? {};
  const status = str(data.status);
  const extra = entry.envelope.event === 'voucher.issued' ? str(data.voucher_id) : '';
  const pieces: LinePiece[] = [
    { text: clock(entry.received_at), paint: c.dim, spare: 1 },
    { text: displayText(entry.envelope.event), paint: c.bold, pad: 25 },
    { text: displayText(entry.envelope.event_id), cut: 'id', min: ID_MIN, spare: 2 },
    { text: str(payloadId(data.order_id)) || '-', drop: 2 },
  ];
  if (status) pieces.push({ text: status, paint: (s) => styleStatus(s, c), drop: 1 });
  else if (extra) pieces.push({ text: extra, drop: 1 });
  if (isUnknownType(entry)) pieces.push({ text: UNKNOWN_TYPE_MARK, paint: c.yellow, short: SHORT_MARKS.unknown });
  if (driftOf(entry).length > 0) pieces.push({ text: DRIFT_MARK, paint: c.yellow, short: SHORT_MARKS.drift });
  if (differsFromFirst(entry)) {
    const n = bodyNumberOf(entry);
    pieces.push({ text: otherBodyMark(n), paint: c.yellow, short: SHORT_MARKS.otherBody(n) });
  }
  return pieces;
}

function defaultShowCommand(eventId: string): string {
  return suggestedCommand(undefined, ['events', 'show', operand(eventId)]);
}

/**
 * The warning for a marked event: its id and type, what differs, and that it was accepted
 * and stored as received. Undefined for an event that matches the contract.
 */
export function markWarning(
  entry: Pick<InboxEntry, 'envelope' | 'meta'>,
  forwarding: boolean,
  showCommand: (eventId: string) => string = defaultShowCommand,
): string | undefined {
  const unknown = isUnknownType(entry);
  const drift = driftOf(entry);
  if (!unknown && drift.length === 0) return undefined;
  const what: string[] = [];
  if (unknown) what.push('is of a type this version of vouchers does not know (a newer API?), so its payload was not checked');
  if (drift.length > 0) {
    const named = drift.slice(0, DRIFT_SHOWN).map(displayText).join('; ');
    const more = drift.length > DRIFT_SHOWN ? `; and ${drift.length - DRIFT_SHOWN} more` : '';
    what.push(`differs from the contract: ${named}${more}`);
  }
  const id = displayText(entry.envelope.event_id);
  return (
    `${id} (${displayText(entry.envelope.event)}) ${what.join(', and ')}. ` +
    `It was accepted and stored as received${forwarding ? ', and is forwarded unchanged' : ''}; details: ${showCommand(entry.envelope.event_id)}`
  );
}

export function createDisplay(io: IO, options: DisplayOptions): Display {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const ce = new Chalk({ level: options.colorErr ? 1 : 0 });
  const showCommand = options.showCommand ?? defaultShowCommand;
  // A line per delivery: written once per turn of the event loop, not once per line.
  const output = batchedOutput();
  // Only ASCII where the terminal shows no more (its arrows, ellipses); JSON as it is.
  const shown = !options.json && asciiOnly(io) ? asciiText : (text: string) => text;
  // On a terminal its notes are wrapped to its width at spaces, as every note is (err in core/io/io.ts).
  const stderr = (text: string) => {
    output.write(io.stderr, io.stderrIsTTY && !options.json ? wrapNote(shown(text), stderrColumns(io)) : shown(text));
  };
  /** A warning on stderr: a JSON notice under --json (as every note then is; its code says it is a warning), else a line starting "Warning:". */
  const warn = (code: string, paint: (s: string) => string, text: string) => {
    if (options.json) stderr(JSON.stringify({ notice: { code, message: text } }) + '\n');
    else stderr(`${paint('Warning:')} ${text}\n`);
  };
  const stdout = (line: string) => {
    output.write(io.stdout, shown(line) + '\n');
  };
  const ndjson = (obj: unknown) => {
    output.write(io.stdout, jsonLine(io, obj));
  };
  const line = (pieces: LinePiece[]) => stdout(fitLine(pieces, options.width?.(), shown === asciiText));
  const forwardPiece = (record: ForwardRecord): LinePiece => {
    const shortest = describeForwardShortest(record);
    return {
      text: describeForward(record),
      short: describeForwardShort(record),
      shorter: shortest.shorter,
      least: shortest.least,
      bare: shortest.bare,
      paint: record.outcome === 'delivered' ? c.green : record.outcome === 'retrying' ? c.yellow : c.red,
      // Only an error's free text is cut, never the words and numbers before it.
      ...(shortest.shorter === shortest.fixed ? {} : { cut: 'end' as const, min: cellWidth(shown(shortest.fixed)) + ERROR_MIN }),
    };
  };
  /** Events whose line waits for their first forward result, by event id. */
  const waiting = new Map<string, { entry: InboxEntry; timer: NodeJS.Timeout }>();
  /** Refusal messages already printed in full, with the time of that line (at most 100 remembered). */
  const explained = new Map<string, string>();
  // One warning per event type and way of differing: later events like it are marked on their line only.
  const warned = new Set<string>();
  const warnMarked = (entry: InboxEntry) => {
    const warning = markWarning(entry, options.forwardWaitMs !== undefined, options.showCommand);
    if (!warning) return;
    const key = `${entry.envelope.event}\u0000${isUnknownType(entry)}\u0000${driftOf(entry)
      .map((d) => d.split(':')[0])
      .join('\u0000')}`;
    if (warned.has(key)) return;
    warned.add(key);
    warn(
      'EVENT_DIFFERS',
      ce.yellow,
      `${warning} (later ${displayText(entry.envelope.event)} events that differ the same way are only marked)`,
    );
  };
  const release = (eventId: string, suffix: LinePiece) => {
    const w = waiting.get(eventId);
    if (!w) return false;
    clearTimeout(w.timer);
    waiting.delete(eventId);
    line([...eventPieces(c, w.entry), suffix]);
    return true;
  };
  const hold = (entry: InboxEntry, ms: number) => {
    const id = entry.envelope.event_id;
    const timer = setTimeout(() => release(id, { text: '→ forwarding…', paint: c.dim }), ms);
    timer.unref();
    waiting.set(id, { entry, timer });
  };

  return {
    activity(a) {
      switch (a.kind) {
        case 'event': {
          warnMarked(a.entry);
          if (differsFromFirst(a.entry)) {
            const id = a.entry.envelope.event_id;
            const n = bodyNumberOf(a.entry);
            warn(
              'OTHER_BODY',
              ce.yellow,
              `${displayText(id)} was delivered before with another body: the sender reused the event id for other content, ` +
                `or changed the event between deliveries. This delivery is stored too (body ${n}), nothing is dropped; ${showCommand(id)} --body ${n} shows it`,
            );
          }
          // The redacted copy is printed with --json only; a line shows no payload field that could hold a code.
          const envelope = options.json ? redactCodes(a.entry.envelope) : undefined;
          const found = envelope?.found ?? codeFieldsIn(a.entry.envelope);
          if (found.length > 0) {
            warn(
              'CODE_IN_PAYLOAD',
              ce.red,
              `${displayText(a.entry.envelope.event_id)} carries voucher code fields (${found.map(displayText).join(', ')}), ` +
                'which webhook payloads must never do: they are not shown. Report it to the API provider.',
            );
          }
          if (envelope) {
            return ndjson({
              kind: 'event',
              ...eventSummary(a.entry),
              unknown_event_type: isUnknownType(a.entry),
              // The name events list --json gives it: one field name for scripts reading either.
              unknown_type: isUnknownType(a.entry),
              drift: driftOf(a.entry),
              body_differs_from_first: differsFromFirst(a.entry),
              body_number: bodyNumberOf(a.entry),
              envelope: envelope.value,
            });
          }
          if (options.forwardWaitMs === undefined) return line(eventPieces(c, a.entry));
          return hold(a.entry, options.forwardWaitMs);
        }
        case 'duplicate':
          if (options.json) return ndjson({ kind: 'duplicate', ...eventSummary(a) });
          return line([
            { text: clock(a.received_at), paint: c.dim, spare: 1 },
            { text: 'duplicate of', paint: c.dim },
            { text: displayText(a.envelope.event_id), paint: c.dim, join: ' ', cut: 'id', min: ID_MIN },
            { text: `(${displayText(a.envelope.event)})`, paint: c.dim, join: ' ', drop: 2 },
            { text: ': already stored, not forwarded again', paint: c.dim, join: '', drop: 1 },
          ]);
        case 'rejected': {
          const r = a.rejection;
          if (options.json) {
            return ndjson({
              kind: 'rejected',
              time: a.time,
              method: a.method,
              path: a.path,
              remote_address: a.remote_address,
              webhook_id: a.webhook_id,
              status: r.status,
              code: r.code,
              reason: r.reason,
              message: r.message,
            });
          }
          // A sender retries what was refused: the explanation is given once, then each refusal is one line.
          // Said again, its first clause (what is wrong) and when it was said in full: the line reads alone.
          const saidAt = explained.get(r.message);
          if (saidAt === undefined && explained.size < 100) explained.set(r.message, clock(a.time));
          const clause = firstClause(r.message);
          const message = saidAt === undefined ? r.message : `${clause} (the same refusal as at ${saidAt}, said in full there)`;
          stderr(
            `${ce.dim(clock(a.time))}  ${ce.red(`rejected ${r.status} ${r.code}`)}  ${escapeText(a.method)} ${escapeText(a.path)}` +
              `${a.webhook_id ? ` (${displayText(a.webhook_id)})` : ''}: ${escapeText(message)}\n`,
          );
          return;
        }
      }
    },
    forward(record) {
      if (options.json) return ndjson({ kind: 'forward', ...record });
      if (release(record.event_id, forwardPiece(record))) return;
      line([
        { text: clock(record.time), paint: c.dim, spare: 1 },
        forwardPiece(record),
        { text: record.event_id, paint: c.dim, cut: 'id', min: ID_MIN },
      ]);
    },
    writeQueued() {
      output.flush();
    },
    flush() {
      for (const id of [...waiting.keys()]) release(id, { text: '→ forwarding stopped', bare: '→ stopped', paint: c.dim });
      output.flush();
    },
  };
}
