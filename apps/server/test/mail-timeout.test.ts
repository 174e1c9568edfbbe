import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@poi/shared/messages';
import { createTestContext, requestCode, uniqueEmail, type TestContext } from './helpers';

/**
 * An SMTP server that accepts the connection and never says a word (a stuck relay, a firewall
 * that swallows the traffic): the sign-in answers its Japanese 503 within the mail bound
 * (SMTP_TIMEOUT_MS), not after nodemailer's 30-second greeting wait.
 */
describe('a mail server that never replies', () => {
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let ctx: TestContext;

  beforeAll(async () => {
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    ctx = await createTestContext({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '1000' });
  });

  afterAll(async () => {
    await ctx?.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers the sign-in request with the mail-failure 503 within the bound', async () => {
    const started = Date.now();
    const res = await requestCode(ctx, uniqueEmail('silent-smtp'));
    const took = Date.now() - started;
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: messages.mailSendFailed });
    // The 1 s bound plus the challenge's writes (slow on a loaded 2-core machine); before the bound
    // this took nodemailer's 30 s greeting wait, the console's own give-up.
    expect(took).toBeLessThan(8_000);
  }, 45_000);

  it('frees the resend wait, so the next request is not told to wait', async () => {
    const email = uniqueEmail('silent-smtp-again');
    expect((await requestCode(ctx, email)).statusCode).toBe(503);
    const again = await requestCode(ctx, email);
    expect(again.statusCode).toBe(503);
    expect(again.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: messages.mailSendFailed });
  }, 45_000);
});
