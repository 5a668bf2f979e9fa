/**
 * A listener forwarding to the app, killed (SIGKILL, spawned CLI) after acknowledging events
 * and before the app answered: the events are in the inbox and owed to the app. A listener
 * started again on the inbox forwards them; `events list|show|replay --not-forwarded` count
 * every stored body without a 2xx of the app as not forwarded, whether forwarding was cut
 * short or never ran.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { BIN } from '../helpers/bin.js';
import { testIO } from '../helpers/io.js';
import { shellWords } from '../helpers/cli-text.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { deliver, hmac, orderEvent, SECRET, testId } from './deliveries.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface App {
  url: string;
  /** Bodies received, in order (answered or not). */
  got: { eventId: string; signed: boolean }[];
}

/** An app at 127.0.0.1 that answers 204, or (hang) never answers. */
async function app(hang: boolean): Promise<App> {
  const got: App['got'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const [t, v1] = String(req.headers['x-webhook-signature']).split(',');
      const signed = v1 === `v1=${hmac(SECRET, Number(t?.slice(2)), body)}`;
      got.push({ eventId: (JSON.parse(body.toString()) as { event_id: string }).event_id, signed });
      if (!hang) res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/** `vouchers listen` in a child process, to be killed. */
async function spawnListener(configDir: string, args: string[]): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [BIN, 'listen', '--port', '0', '--secret', SECRET, ...args], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1', VOUCHERS_WEBHOOK_SECRET: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanup.push(() => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'));
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await until(() => /Ready! Listening on (http:\/\/[^\s"]+)/.exec(err)?.[1], 'the listener to start', 10_000);
  return { proc, url };
}

/** `vouchers listen` in this process, stopped with Ctrl-C. */
async function listenHere(configDir: string, args: string[]) {
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
  const done = run(['listen', '--port', '0', '--secret', SECRET, ...args], io);
  await until(() => io.stderrText().includes('Press Ctrl-C') && io.stderrText());
  return {
    io,
    stop: async () => {
      io.interrupt();
      return done;
    },
  };
}

const ids = [1, 2, 3].map((n) => testId('evt', 600 + n));

describe('events acknowledged and not forwarded', () => {
  it('a listener killed before the app answered: the next one forwards them, and nothing is left to replay', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const slow = await app(true);
    const first = await spawnListener(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    for (const n of [1, 2, 3]) expect((await deliver(first.url, orderEvent(600 + n, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    await until(() => slow.got.length === 3, 'the forwards to reach the app');
    first.proc.kill('SIGKILL');
    await until(() => first.proc.signalCode === 'SIGKILL', 'the listener to die');

    // What the inbox says before any listener runs again.
    const listed = await runCli(['events', 'list', '--inbox', inbox, '--json'], { env: { VOUCHERS_CONFIG_DIR: configDir } });
    expect((JSON.parse(listed.stdout) as { forwarded: boolean }[]).map((r) => r.forwarded)).toEqual([false, false, false]);
    const shown = await runCli(['events', 'show', ids[0]!, '--inbox', inbox], { env: { VOUCHERS_CONFIG_DIR: configDir } });
    expect(shown.stdout).toMatch(/forwarded\s+no: it never reached the app \(vouchers events replay \S+ --forward-to URL --inbox /);

    const good = await app(false);
    const second = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url]);
    expect(second.io.stderrText()).toContain(
      'Inbox: 3 events were acknowledged by a listener that stopped before forwarding ended, and never reached the app: ' +
        'forwarding them now, oldest first (delivery is at least once: the app may get an event it already handled, and tells it by its event id).',
    );
    await until(() => good.got.length === 3, 'the owed events to reach the app');
    expect([...good.got].sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual(ids.map((eventId) => ({ eventId, signed: true })));
    // A new event meanwhile is forwarded once, as usual.
    expect((await deliver(second.io.stderrText().match(/Listening on (http:\/\/[^\s"]+)/)![1]!, orderEvent(700))).status).toBe(200);
    await until(() => good.got.length === 4, 'the new event to reach the app');
    expect(await second.stop()).toBe(0);
    expect(second.io.stderrText()).not.toContain('Not forwarded');

    const replay = await runCli(['events', 'replay', '--not-forwarded', '--inbox', inbox, '--secret', SECRET], {
      env: { VOUCHERS_CONFIG_DIR: configDir },
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain(
      'Every event stored in this inbox reached the app (the forward log shows a 2xx for each): nothing to replay.',
    );
    // Started again: nothing is owed any more, and nothing is sent.
    const third = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url]);
    expect(await third.stop()).toBe(0);
    expect(third.io.stderrText()).not.toContain('never reached the app');
    expect(good.got).toHaveLength(4);
  }, 30_000);

  it('owed events of types a restarted listener leaves out (--events): counted at start, with the command that forwards them', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const env = { env: { VOUCHERS_CONFIG_DIR: configDir } };
    const slow = await app(true);
    const first = await spawnListener(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    expect((await deliver(first.url, orderEvent(601, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    expect((await deliver(first.url, orderEvent(602, 'order.processing', 'PROCESSING'))).status).toBe(200);
    expect((await deliver(first.url, orderEvent(603, 'order.cancelled', 'CANCELLED'))).status).toBe(200);
    await until(() => slow.got.length === 3, 'the forwards to reach the app');
    first.proc.kill('SIGKILL');
    await until(() => first.proc.signalCode === 'SIGKILL', 'the listener to die');

    const good = await app(false);
    const second = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url, '--events', 'order.delivered']);
    await until(() => good.got.length === 1, 'the owed event of its type to reach the app');
    expect(await second.stop()).toBe(0);
    expect(good.got).toEqual([{ eventId: ids[0], signed: true }]);
    const command = `vouchers events replay --not-forwarded --type order.processing,order.cancelled --forward-to ${good.url} --inbox ${inbox}`;
    expect(second.io.stderrText()).toContain(
      'Inbox: 2 events were acknowledged by a listener that stopped before forwarding ended, and never reached the app, ' +
        'of types this listener does not forward (--events order.delivered): order.processing, order.cancelled. ' +
        `Forward them with:\n  ${command}\n`,
    );

    const replay = await runCli([...command.split(' ').slice(1), '--secret', SECRET], env);
    expect(replay.code, replay.stderr).toBe(0);
    expect(good.got.slice(1)).toEqual([
      { eventId: ids[1], signed: true },
      { eventId: ids[2], signed: true },
    ]);

    // A forward URL with a credential is not repeated in the command.
    const withUser = new URL(good.url);
    withUser.username = 'app';
    withUser.password = 'app-password';
    const third = await spawnListener(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    expect((await deliver(third.url, orderEvent(604, 'order.processing', 'PROCESSING'))).status).toBe(200);
    await until(() => slow.got.length === 4, 'the forward to reach the app');
    third.proc.kill('SIGKILL');
    await until(() => third.proc.signalCode === 'SIGKILL', 'the listener to die');
    const fourth = await listenHere(configDir, ['--inbox', inbox, '--forward-to', withUser.toString(), '--events', 'order.delivered']);
    expect(await fourth.stop()).toBe(0);
    expect(fourth.io.stderrText()).toContain(
      'Inbox: 1 event was acknowledged by a listener that stopped before forwarding ended, and never reached the app, ' +
        'of a type this listener does not forward (--events order.delivered): order.processing. ' +
        `Forward it with:\n  vouchers events replay --not-forwarded --type order.processing --inbox ${inbox}\n`,
    );
    expect(fourth.io.stderrText()).not.toContain('app-password');
  }, 30_000);

  it('owed events of types named any way a delivery may name them: the command given forwards each, and only those', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const env = { env: { VOUCHERS_CONFIG_DIR: configDir } };
    // Stored while not forwarding, of a type the star below matches as a glob: not to be sent.
    const plain = await listenHere(configDir, ['--inbox', inbox]);
    const plainUrl = /Listening on (http:\/\/[^\s"]+)/.exec(plain.io.stderrText())![1]!;
    expect((await deliver(plainUrl, orderEvent(614, 'order,refunded.late'))).status).toBe(200);
    expect(await plain.stop()).toBe(0);
    const slow = await app(true);
    const first = await spawnListener(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    // Dashes, capitals and spaces; a comma and a star; a backslash and a space at the end.
    const odd = ['Order-V2 Delivered', 'order,refunded*', 'order.\\x '];
    for (const [i, type] of odd.entries()) expect((await deliver(first.url, orderEvent(611 + i, type))).status).toBe(200);
    await until(() => slow.got.length === 3, 'the forwards to reach the app');
    first.proc.kill('SIGKILL');
    await until(() => first.proc.signalCode === 'SIGKILL', 'the listener to die');

    const good = await app(false);
    const second = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url, '--events', 'order.delivered']);
    expect(await second.stop()).toBe(0);
    const command = /does not forward \(--events order\.delivered\)[^\n]*with:\n {2}(vouchers [^\n]*)\n/.exec(second.io.stderrText())?.[1];
    expect(command, second.io.stderrText()).toBeDefined();
    const words = shellWords(command!);
    const replay = await runCli([...words.slice(1), '--secret', SECRET], env);
    expect(replay.code, replay.stderr).toBe(0);
    expect(good.got.map((g) => g.eventId).sort()).toEqual([611, 612, 613].map((n) => testId('evt', n)).sort());
    expect(good.got.every((g) => g.signed)).toBe(true);
  }, 30_000);

  it('the commands a stopped listener gives keep its forward retries and timeout, and name its forward headers without their values', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const slow = await app(true);
    const forward = ['--forward-to', slow.url, '--forward-header', 'Authorization: Bearer tok-77', '--inbox', inbox];
    const headerNote = 'add --forward-header for authorization as this listener had it: its value is left out here';
    // Cut off by the stop: owed to the next listener, started as this one was.
    const first = await listenHere(configDir, [...forward, '--forward-retries', '2', '--forward-timeout', '30']);
    const url = /Listening on (http:\/\/[^\s"]+)/.exec(first.io.stderrText())![1]!;
    const port = new URL(url).port;
    expect((await deliver(url, orderEvent(861, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    await until(() => slow.got.length === 1, 'the forward to reach the app');
    expect(await first.stop()).toBe(0);
    expect(first.io.stderrText()).toContain(
      `next listen --forward-to on this inbox forwards it, such as:\n  vouchers listen --port ${port} --forward-to ${slow.url} --forward-retries 2 --forward-timeout 30 --inbox ${inbox} (${headerNote})\n`,
    );
    expect(first.io.stderrText()).not.toContain('tok-77');

    // Forwarding gave up: replayed by hand, with the timeout it had.
    const second = await listenHere(configDir, [...forward, '--forward-retries', '0', '--forward-timeout', '1']);
    const url2 = /Listening on (http:\/\/[^\s"]+)/.exec(second.io.stderrText())![1]!;
    expect((await deliver(url2, orderEvent(862, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    await until(() => (second.io.stdoutText().match(/not retried/g) ?? []).length === 2, 'the forwards to give up');
    expect(await second.stop()).toBe(0);
    const stderr = second.io.stderrText();
    expect(stderr).toContain(
      `  vouchers events replay ${testId('evt', 862)} --forward-to ${slow.url} --forward-timeout 1 --inbox ${inbox}\n`,
    );
    expect(stderr).toContain(
      `or every one of them, one after the other:\n  vouchers events replay --not-forwarded --forward-to ${slow.url} --forward-timeout 1 --inbox ${inbox}\n`,
    );
    expect(stderr).toContain(`In each command above: ${headerNote}.\n`);
    expect(stderr).not.toContain('tok-77');
  }, 30_000);

  it('one event cut off by Ctrl-C is named as one', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const slow = await app(true);
    const first = await listenHere(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    const url = first.io.stderrText().match(/Listening on (http:\/\/[^\s"]+)/)![1]!;
    expect((await deliver(url, orderEvent(850, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    await until(() => slow.got.length === 1, 'the forward to reach the app');
    expect(await first.stop()).toBe(0);
    expect(first.io.stderrText()).toContain(
      `Forwarding of 1 event was cut off by this stop: it is in the inbox, and the next listen --forward-to on this inbox forwards it, such as:\n  vouchers listen --port ${new URL(url).port} --forward-to ${slow.url} --inbox ${inbox}\n`,
    );
  });

  it('a listener stopped by Ctrl-C before the app answered: the next one forwards them, as after a kill', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'in', 'events.ndjson');
    const slow = await app(true);
    const first = await listenHere(configDir, ['--inbox', inbox, '--forward-to', slow.url]);
    const url = first.io.stderrText().match(/Listening on (http:\/\/[^\s"]+)/)![1]!;
    const cut = [1, 2].map((n) => testId('evt', 800 + n));
    for (const n of [1, 2]) expect((await deliver(url, orderEvent(800 + n, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    await until(() => slow.got.length === 2, 'the forwards to reach the app');
    expect(await first.stop()).toBe(0);
    expect(first.io.stderrText()).toContain(
      `Forwarding of 2 events was cut off by this stop: they are in the inbox, and the next listen --forward-to on this inbox forwards them, such as:\n  vouchers listen --port ${new URL(url).port} --forward-to ${slow.url} --inbox ${inbox}\n`,
    );
    expect(first.io.stderrText()).not.toContain('Not forwarded');

    const good = await app(false);
    const second = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url]);
    expect(second.io.stderrText()).toContain('Inbox: 2 events were acknowledged by a listener that stopped before forwarding ended');
    await until(() => good.got.length === 2, 'the owed events to reach the app');
    expect([...good.got].sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual(cut.map((eventId) => ({ eventId, signed: true })));
    expect(await second.stop()).toBe(0);
    expect(second.io.stderrText()).not.toContain('cut off');
  }, 30_000);

  it('events stored while not forwarding: not forwarded for replay --not-forwarded and list, named by a listener that starts forwarding', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'events.ndjson');
    const plain = await listenHere(configDir, ['--inbox', inbox]);
    const url = /Listening on (http:\/\/[^\s"]+)/.exec(plain.io.stderrText())![1]!;
    for (const n of [1, 2]) expect((await deliver(url, orderEvent(600 + n))).status).toBe(200);
    expect(await plain.stop()).toBe(0);

    const good = await app(false);
    const forwarding = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url]);
    expect(await forwarding.stop()).toBe(0);
    expect(forwarding.io.stderrText()).toContain(
      'Inbox: 2 stored events have never reached the app (forwarding gave up, or stored while not forwarding); ' +
        `this listener forwards only what it receives. Forward them with:\n  vouchers events replay --not-forwarded --forward-to ${good.url} --inbox ${inbox}\n`,
    );
    expect(good.got).toEqual([]);

    const env = { env: { VOUCHERS_CONFIG_DIR: configDir } };
    const table = await runCli(['events', 'list', '--inbox', inbox], env);
    expect(table.stdout).not.toContain('FORWARDED'); // never forwarded anywhere: no column
    const replay = await runCli(
      ['events', 'replay', '--not-forwarded', '--forward-to', good.url, '--inbox', inbox, '--secret', SECRET],
      env,
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('Replayed 2 events: each answered 2xx.');
    expect(good.got).toEqual(ids.slice(0, 2).map((eventId) => ({ eventId, signed: true })));
    const after = await runCli(['events', 'list', '--inbox', inbox, '--output', 'csv', '--fields', 'event_id,forwarded'], env);
    expect(after.stdout.trim().split('\n')).toEqual(['event_id,forwarded', `${ids[1]},true`, `${ids[0]},true`]);
    const shown = await runCli(['events', 'show', ids[0]!, '--inbox', inbox, '--json'], env);
    expect((JSON.parse(shown.stdout) as { forwarded: boolean }).forwarded).toBe(true);
  }, 30_000);

  it('--events: the types a listener forwards are what is counted and replayed; --type picks them in replay --not-forwarded', async () => {
    const configDir = tempConfigDir();
    const inbox = join(configDir, 'events.ndjson');
    const env = { env: { VOUCHERS_CONFIG_DIR: configDir } };
    // Stored while not forwarding: one order.delivered, one order.processing.
    const plain = await listenHere(configDir, ['--inbox', inbox]);
    const url = /Listening on (http:\/\/[^\s"]+)/.exec(plain.io.stderrText())![1]!;
    expect((await deliver(url, orderEvent(601, 'order.delivered', 'DELIVERED'))).status).toBe(200);
    expect((await deliver(url, orderEvent(602, 'order.processing', 'PROCESSING'))).status).toBe(200);
    expect(await plain.stop()).toBe(0);

    const good = await app(false);
    const forwarding = await listenHere(configDir, ['--inbox', inbox, '--forward-to', good.url, '--events', 'order.delivered']);
    expect(await forwarding.stop()).toBe(0);
    // Only the type it forwards is counted, and the command repeats it.
    expect(forwarding.io.stderrText()).toContain(
      'Inbox: 1 stored event has never reached the app (forwarding gave up, or stored while not forwarding); ' +
        `this listener forwards only what it receives. Forward it with:\n  vouchers events replay --not-forwarded --type order.delivered --forward-to ${good.url} --inbox ${inbox}\n`,
    );

    const replay = await runCli(
      ['events', 'replay', '--not-forwarded', '--type', 'order.delivered', '--forward-to', good.url, '--inbox', inbox, '--secret', SECRET],
      env,
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(good.got).toEqual([{ eventId: ids[0], signed: true }]);
    const again = await runCli(
      ['events', 'replay', '--not-forwarded', '--type', 'order.delivered', '--forward-to', good.url, '--inbox', inbox, '--secret', SECRET],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Every event of those types stored in this inbox reached the app; 1 of other types did not');
    expect(good.got).toHaveLength(1);
    // --type without --not-forwarded is a usage error.
    const named = await runCli(['events', 'replay', ids[1]!, '--type', 'order.*', '--forward-to', good.url, '--inbox', inbox], env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('--type picks among the events --not-forwarded finds');
  }, 30_000);
});
