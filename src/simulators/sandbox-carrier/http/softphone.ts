import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Knex } from 'knex';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../../logger.ts';
import type { SandboxCarrier } from '../carrier.ts';

/** Where the page's socket is served, beside the page. */
export const SOFTPHONE_SOCKET_PATH = '/sandbox/phone/socket';
/** A page sends JSON messages and 20 ms audio frames (640 bytes); anything this large is not one of them. */
const MAX_MESSAGE_BYTES = 16 * 1024;

/**
 * Whether a Parley user holds `phoneNumber`, or is buying it, or the sandbox carrier has it provisioned:
 * such a number is Parley's, and no softphone may claim it.
 */
export async function heldInParley(knex: Knex, phoneNumber: string): Promise<boolean> {
  const owned = await knex('phone_numbers').where({ phoneNumber }).whereIn('status', ['pending', 'active', 'past_due']).first<{ id: number } | undefined>('id');
  if (owned) return true;
  return Boolean(await knex('sandbox_phone_numbers').where({ phoneNumber }).whereNull('releasedAt').first<{ id: string } | undefined>('id'));
}

/**
 * The HTTP server's upgrade handler when the sandbox is the carrier: the softphone page's socket at
 * SOFTPHONE_SOCKET_PATH, handed to the carrier; any other upgrade is answered 404.
 */
export function softphoneUpgrades(carrier: SandboxCarrier, logger: Logger): (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void {
  const upgrades = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });
  return (request, socket, head) => {
    // Until the upgrade completes nothing else listens, and an unheard socket error would end the process.
    const onError = (error: Error) => logger.debug({ err: error }, 'a softphone socket failed before the upgrade');
    socket.on('error', onError);
    if (new URL(request.url ?? '/', 'http://parley').pathname !== SOFTPHONE_SOCKET_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    upgrades.handleUpgrade(request, socket, head, (page) => {
      socket.off('error', onError);
      carrier.softphones.connect(page);
    });
  };
}
