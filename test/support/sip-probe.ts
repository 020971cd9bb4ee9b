import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

/**
 * Sends `OPTIONS sip:<host>:<port>` (no user part, as carriers probe a trunk) over UDP or TCP and resolves
 * with the status line of the answer: a test's own probe, not a SIP stack (baresip is the user agent of the
 * calls).
 */
export async function sipOptions(host: string, port: number, transport: 'udp' | 'tcp' | 'tls', timeoutMs = 3000): Promise<string> {
  const request = (localPort: number) => [
    `OPTIONS sip:${host}:${port} SIP/2.0`,
    `Via: SIP/2.0/${transport.toUpperCase()} 127.0.0.1:${localPort};branch=z9hG4bK${randomBytes(8).toString('hex')};rport`,
    `From: <sip:probe@127.0.0.1>;tag=${randomBytes(4).toString('hex')}`,
    `To: <sip:${host}:${port}>`,
    `Call-ID: ${randomBytes(8).toString('hex')}@127.0.0.1`,
    'CSeq: 1 OPTIONS',
    'Max-Forwards: 70',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
  const firstLine = (data: Buffer) => data.toString('utf8').split('\r\n')[0] ?? '';
  if (transport === 'udp') {
    const socket = dgram.createSocket('udp4');
    try {
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      return await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to OPTIONS over UDP from ${host}:${port}`)), timeoutMs);
        socket.once('message', (data) => {
          clearTimeout(timer);
          resolve(firstLine(data));
        });
        socket.send(request(socket.address().port), port, host);
      });
    } finally {
      socket.close();
    }
  }
  // The tests' certificate is their own, self-signed: the probe checks the transport, not the certificate.
  const socket = transport === 'tls' ? tls.connect({ port, host, rejectUnauthorized: false }) : net.connect(port, host);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once(transport === 'tls' ? 'secureConnect' : 'connect', resolve);
      socket.once('error', reject);
    });
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to OPTIONS over TCP from ${host}:${port}`)), timeoutMs);
      socket.once('data', (data: Buffer) => {
        clearTimeout(timer);
        resolve(firstLine(data));
      });
      socket.write(request(socket.localPort ?? 0));
    });
  } finally {
    socket.destroy();
  }
}
