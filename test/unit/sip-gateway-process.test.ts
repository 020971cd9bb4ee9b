import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { GatewayProcess } from '../../src/sip/gateway-process.ts';

/**
 * The sip role's side of the gateway's pipe, against a stand-in gateway (a Node script speaking the same JSON
 * lines): requests both ways, notices, a gateway that dies and is started again, one that never listens.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-fake-gateway-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function fakeGateway(name: string, script: string): string {
  fs.writeFileSync(path.join(dir, `${name}.mjs`), script);
  const binary = path.join(dir, name);
  fs.writeFileSync(binary, `#!/bin/sh\nexec "${process.execPath}" "${path.join(dir, `${name}.mjs`)}"\n`, { mode: 0o755 });
  return binary;
}

const listening = `
import readline from 'node:readline';
const say = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
say({ type: 'ready', body: { udp: '127.0.0.1:5060', tcp: '127.0.0.1:5060', publicHost: '127.0.0.1' } });
process.stderr.write(JSON.stringify({ level: 'INFO', msg: 'fake gateway listening', pid: process.pid }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.type === 'dial') {
    say({ id: 7, type: 'admit', body: { number: message.body.to } });
    say({ type: 'status', body: { callSid: message.body.callSid, status: 'ringing' } });
    say({ re: message.id, body: { placed: true } });
  }
  if (message.type === 'die') process.exit(9);
  if (message.re === 7) say({ type: 'status', body: { callSid: 'admitted', status: message.body.code } });
});
`;

describe('the SIP gateway process', () => {
  const logger = createLogger({ log: { level: 'silent', pretty: false } });

  it('asks and answers over the pipe, hears notices, and starts a gateway that died again once its calls are ended', async () => {
    const gateway = new GatewayProcess({ binary: fakeGateway('listening', listening), env: {}, logger });
    const notices: unknown[] = [];
    gateway.listen('status', (body) => notices.push(body));
    gateway.handle('admit', (body) => Promise.resolve({ code: (body as { number: string }).number === '+4930123456' ? 0 : 404 }));
    let exits = 0;
    gateway.onExit = () => {
      exits++;
      return Promise.resolve();
    };
    try {
      expect(await gateway.start()).toEqual({ udp: '127.0.0.1:5060', tcp: '127.0.0.1:5060', publicHost: '127.0.0.1' });
      const firstPid = gateway.pid;
      expect(await gateway.ask('dial', { callSid: 'SIP1', to: '+4930123456' })).toEqual({ placed: true });
      await expect.poll(() => notices).toEqual([{ callSid: 'SIP1', status: 'ringing' }, { callSid: 'admitted', status: 0 }]);
      await expect(gateway.ask('die', {}, 2000)).rejects.toThrow('the SIP gateway exited');
      await expect.poll(() => gateway.listening !== undefined && gateway.pid !== firstPid, { timeout: 5000 }).toBe(true);
      expect(exits).toBe(1);
      expect(await gateway.ask('dial', { callSid: 'SIP2', to: '+4930000000' })).toEqual({ placed: true });
    } finally {
      await gateway.stop();
    }
  });

  it('rejects the start of a gateway that exits before it listens, and starts no other', async () => {
    const gateway = new GatewayProcess({ binary: fakeGateway('failing', 'process.exit(3);'), env: {}, logger });
    await expect(gateway.start()).rejects.toThrow('exited with 3 before it listened');
    const pid = gateway.pid;
    // A restart would come a second after the exit.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(gateway.pid).toBe(pid);
    await expect(gateway.ask('dial', {})).rejects.toThrow('not running');
  });
});
