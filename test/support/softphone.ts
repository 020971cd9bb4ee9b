import type WebSocket from 'ws';

/** A message between the sandbox softphone page and the carrier. */
export type PageMessage = { type: string; [field: string]: unknown };

/** A softphone page as its socket sees the carrier: the JSON messages it was sent, the audio frames it heard. */
export class Page {
  readonly messages: PageMessage[] = [];
  readonly audio: Int16Array[] = [];
  readonly socket: WebSocket;
  private waiters: (() => void)[] = [];

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.audio.push(new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
      else this.messages.push(JSON.parse(data.toString('utf8')) as PageMessage);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(message: PageMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The next message of one of `types` not yet taken. */
  async next(...types: string[]): Promise<PageMessage> {
    for (;;) {
      const at = this.messages.findIndex((message) => types.includes(message.type));
      if (at >= 0) return this.messages.splice(at, 1)[0]!;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async claim(number: string): Promise<PageMessage> {
    this.send({ type: 'claim', number });
    return this.next('claimed', 'error');
  }
}

/** The mean absolute sample of some audio: well above zero when it holds a tone. */
export const level = (frames: Int16Array[]) => {
  let sum = 0;
  let count = 0;
  for (const frame of frames) for (const sample of frame) {
    sum += Math.abs(sample);
    count++;
  }
  return count === 0 ? 0 : sum / count;
};
