import type { WhatsAppRequest } from '../../providers/telephony/types.ts';
import { MessageChannel, type StatusStep } from './message-channel.ts';
import { recipientFor } from './messaging.ts';

/** One WhatsApp message the sandbox carrier carried, between a sender (Parley's number) and a customer's phone. */
export interface SimulatedWhatsApp {
  sid: string;
  /** `outbound-api`: the sender wrote to the phone; `inbound`: the phone wrote to the sender. */
  direction: 'outbound-api' | 'inbound';
  /** E.164, without Twilio's `whatsapp:` prefix. */
  sender: string;
  phone: string;
  body: string;
  /** queued, sent, delivered, read, failed, undelivered; `received` for inbound messages. */
  status: string;
  /** Unix milliseconds. */
  at: number;
}

/** How many messages the carrier keeps per (sender, phone), oldest dropped first. */
const KEEP_PER_CHAT = 200;

/**
 * The sandbox carrier's WhatsApp: the counterpart of every sandbox sender is a phone in a browser page
 * (http/whatsapp-page.ts). Messages a sender sends are reported `sent` then `delivered`
 * to their status callback, signed as Twilio signs, and `read` once the page shows them; what the page writes
 * is posted to Parley's messaging webhook as Twilio posts a WhatsApp message (`whatsapp:` addresses,
 * `ProfileName`, `WaId`). Chats live in memory, as calls do. The recipient's last two digits pick what happens
 * as for texts: 95 to 97 fail (63016-like, never charged by the carrier), 80 to 84 are undelivered.
 */
export class SandboxWhatsApp extends MessageChannel {
  protected readonly noun = 'WhatsApp message';
  private readonly chats = new Map<string, SimulatedWhatsApp[]>();
  private readonly callbacks = new Map<string, string>();

  /** Accepts a message from a sender, answered `queued`; its status callbacks follow. */
  send(request: WhatsAppRequest): SimulatedWhatsApp {
    const message = this.keep({ sid: this.newSid(), direction: 'outbound-api', sender: request.from, phone: request.to, body: request.body, status: 'queued', at: Date.now() });
    this.callbacks.set(message.sid, request.statusCallbackUrl);
    const kind = recipientFor(request.to);
    // Twilio's 63016: outside the window without a template; 63003: the channel could not reach the address.
    const steps: StatusStep[] = kind === 'failing' ? [['failed', 63003]] : kind === 'unreachable' ? [['sent'], ['undelivered', 63016]] : [['sent'], ['delivered']];
    this.reportStatus(message, steps);
    return { ...message };
  }

  /** The page writes to a sender: posted to Parley's messaging webhook, signed; answers Parley's HTTP status. */
  async receive(text: { sender: string; phone: string; name: string; body: string }): Promise<{ sid: string; answered: number }> {
    const message = this.keep({ sid: this.newSid(), direction: 'inbound', sender: text.sender, phone: text.phone, body: text.body, status: 'received', at: Date.now() });
    const answered = await this.postToParley(message.sid, { From: `whatsapp:${text.phone}`, To: `whatsapp:${text.sender}`, Body: text.body }, {
      ProfileName: text.name, WaId: text.phone.replace(/^\+/, ''),
    });
    return { sid: message.sid, answered };
  }

  /** The page showed the sender's messages to the phone: each delivered one becomes `read`, and is reported so. */
  markRead(sender: string, phone: string): number {
    const unread = this.chat(sender, phone).filter((message) => message.direction === 'outbound-api' && message.status === 'delivered');
    for (const message of unread) this.reportStatus(message, [['read']], 0);
    return unread.length;
  }

  /** The chat between a sender and a phone, oldest first. */
  chat(sender: string, phone: string): SimulatedWhatsApp[] {
    return [...(this.chats.get(`${sender}|${phone}`) ?? [])];
  }

  private keep(message: SimulatedWhatsApp): SimulatedWhatsApp {
    const key = `${message.sender}|${message.phone}`;
    const chat = this.chats.get(key) ?? [];
    chat.push(message);
    if (chat.length > KEEP_PER_CHAT) this.callbacks.delete(chat.shift()!.sid);
    this.chats.set(key, chat);
    return message;
  }

  /** Reports the message's status changes to its callback, as Twilio posts a WhatsApp message's. */
  private reportStatus(message: SimulatedWhatsApp, steps: StatusStep[], stepMs?: number): void {
    this.report(message, this.callbacks.get(message.sid), steps, {
      From: `whatsapp:${message.sender}`, To: `whatsapp:${message.phone}`, ChannelPrefix: 'whatsapp', ChannelToAddress: message.phone,
    }, stepMs);
  }
}
