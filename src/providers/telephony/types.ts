/**
 * What Parley asks of a carrier: which numbers it offers, to provision one (calls and messages to it then
 * reach Parley's public URL), to configure where they go, to release one, and, where the carrier does it, to
 * place and end calls and to send text messages. The sandbox carrier and Twilio both answer through it.
 */

/** How a carrier wants the buyer's address proven before it provisions a number (Twilio's terms). */
export type AddressRequirement = 'none' | 'local' | 'foreign' | 'inventory';

export interface AvailableNumber {
  /** E.164. */
  phoneNumber: string;
  /** As dialled in its country. */
  phoneNumberFormatted: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  monthlyPriceMicros: number;
  addressRequirements: AddressRequirement;
  smsCapable: boolean;
}

export interface NumberSearch {
  countryCode: string;
  /** Digits the number must contain (at most 10). */
  contains?: string;
  limit: number;
}

/** Where a carrier sends what happens on one of its numbers, each as a POST (Twilio's terms). */
export interface NumberRouting {
  /** Asked what to do with an incoming call (TwiML). */
  voiceUrl: string;
  /** Told of each status change of the number's calls. */
  statusCallbackUrl: string;
  /** Given each incoming message. */
  smsUrl: string;
}

export interface TelephonyProvider {
  readonly name: 'sandbox' | 'twilio';
  searchNumbers(search: NumberSearch): Promise<AvailableNumber[]>;
  /**
   * Provisions `phoneNumber` for this deployment. `idempotencyKey` names the purchase: asked again with the
   * same key (a retried activity), the carrier answers the number it provisioned the first time. A number
   * the carrier will not give (taken meanwhile, declined) is a `RejectedError`: asking again will not help.
   */
  provisionNumber(request: { phoneNumber: string; idempotencyKey: string }): Promise<{ providerNumberId: string }>;
  /**
   * Points a provisioned number's calls, their status changes and its messages at `routing` (provisioning
   * points them at Parley's routes, routing.ts). A number the carrier does not hold is a `RejectedError`.
   */
  configureNumber(providerNumberId: string, routing: NumberRouting): Promise<void>;
  /** Gives a provisioned number back; releasing one already released is not an error. */
  releaseNumber(providerNumberId: string): Promise<void>;
  /**
   * The key the carrier signs its callbacks with, Twilio's way (`X-Twilio-Signature`): Twilio's auth token,
   * the sandbox carrier's own. A method, so the provider printed never shows it.
   */
  callbackToken(): string;
  /** Placing and ending calls, where this carrier does it. */
  readonly calls?: CarrierCalls;
  /** Sending text messages, where this carrier does it. */
  readonly messages?: CarrierMessages;
}

/** A phone call Parley asks a carrier to place. */
export interface CallRequest {
  /** Parley's id of the call: the SIP gateway, a carrier of Parley's own, records its calls by it. */
  callId?: number;
  /** E.164: one of the account's numbers, and the callee. */
  from: string;
  to: string;
  /**
   * The media gateway's Media Streams URL the carrier connects the answered call to, and the parameters it
   * hands back in the stream's `start.customParameters` (the call's id and its stream credential).
   */
  stream: { url: string; parameters: Record<string, string> };
  /** Where the carrier posts each change of the call's status, signed as Twilio signs its callbacks. */
  statusCallbackUrl: string;
  /** How long the callee's phone rings before the carrier gives up with `no-answer`. */
  ringTimeoutSeconds: number;
  /**
   * Where a carrier that detects answering machines itself (Twilio's asynchronous AMD) posts its verdict, signed
   * like its status callbacks. Parley's own detector judges every call anyway; the sandbox carrier never says.
   */
  answeredByCallbackUrl?: string;
}

/** One dial of a call, named so that a retried dial cannot place a second call. */
export interface DialAttempt {
  /** Recorded on the call before the first try; every retry of the same dial presents it again. */
  key: string;
  /** When the key was recorded: a call the carrier placed for it was created at or after this. */
  since: Date;
  /** An earlier try with this key may have reached the carrier (its answer was lost). */
  retried: boolean;
}

/** A live call Parley hands over to a phone number (`call_transfer`). */
export interface TransferRequest {
  /** E.164: where the caller is connected. */
  to: string;
  /** The number the person answering sees calling: the account's number of the call. */
  callerId: string;
  /**
   * For a warm transfer: where the carrier asks, once the person at `to` answers, what they hear before the
   * caller is connected (TwiML, as Twilio asks a `<Number url>`).
   */
  whisperUrl?: string;
  /**
   * Where the carrier posts the transfer's outcome when the bridged call ends, as Twilio posts a `<Dial
   * action>` (`DialCallStatus`, `DialCallDuration`), signed like the status callbacks; its TwiML answer is
   * what the caller hears then.
   */
  outcomeUrl: string;
  /** How long the phone at `to` rings before the transfer gives up as `no-answer`. */
  ringTimeoutSeconds: number;
}

/**
 * A live call Parley hands over to a supervisor with a briefing (`warm_call_transfer`), Twilio's way: the
 * caller waits in a conference, hearing hold music, while the carrier calls the supervisor, who hears the
 * briefing and then joins.
 */
export interface WarmTransferRequest {
  /** E.164: the supervisor; or a SIP URI (`custom_sip`), which only Parley's SIP gateway dials. */
  to: string;
  /** The number the supervisor sees calling. */
  callerId: string;
  /** The conference the caller waits in and the supervisor joins, named after the call. */
  room: string;
  /**
   * What the caller hears while waiting, played in a loop until someone else joins (a `<Conference waitUrl>`,
   * fetched with GET): a WAV file. Undefined: the caller waits in silence.
   */
  holdMusicUrl: string | undefined;
  /**
   * The TwiML the supervisor's call follows once answered: the briefing as a `<Say>`, then a `<Redirect>` to
   * Parley, whose answer joins them to `room` (or, the caller gone meanwhile, hangs up).
   */
  supervisorTwiml: string;
  /**
   * Where the carrier posts the status changes of the supervisor's call as Twilio's status callbacks
   * (`CallStatus` completed, busy, no-answer, failed or canceled; `CallDuration`), signed like them.
   */
  supervisorStatusUrl: string;
  /** How long the supervisor's phone rings before the carrier gives up with `no-answer`. */
  ringTimeoutSeconds: number;
  /**
   * The same as what the TwiML above says, for a carrier that plays it itself (Parley's SIP gateway): the
   * supervisor's briefing, what the caller hears once connected, and the hold music's volume (0-100; undefined:
   * silence).
   */
  briefing: string;
  connectedMessage: string;
  holdMusicVolume: number | undefined;
}

/** A warm transfer as a carrier that follows TwiML runs it (the sandbox carrier, as Twilio). */
export type TwimlWarmTransferRequest = Omit<WarmTransferRequest, 'briefing' | 'connectedMessage' | 'holdMusicVolume'>;

/** What a carrier does with calls. */
export interface CarrierCalls {
  /**
   * Places `request` as the call of `attempt`, at most once per `attempt.key`: asked again with a key it has
   * already placed a call for (a retried activity whose first answer was lost), the carrier answers that
   * call's id and dials nobody. A carrier that remembers keys itself (the sandbox) needs nothing more; one
   * that does not (Twilio) looks, on a `retried` attempt, for the call it created since `attempt.since` and
   * adopts it. A call the carrier will not place (a number it will not dial) is a `RejectedError`.
   */
  placeCall(request: CallRequest, attempt: DialAttempt): Promise<{ providerCallId: string }>;
  /** Ends a call: stops its ringing, or hangs it up; a call already over is not an error. */
  endCall(providerCallId: string): Promise<void>;
  /**
   * Hands a live call over to a number: the carrier ends the call's media stream and connects the caller to
   * `to`. A call that is not live (or not the carrier's) is a `RejectedError`.
   */
  transferCall(providerCallId: string, request: TransferRequest): Promise<void>;
  /**
   * Hands a live call over to a supervisor: the carrier ends the call's media stream, holds the caller in
   * `request.room` and calls the supervisor, answering that call's id. A call that is not live (or not the
   * carrier's) is a `RejectedError`. Where the carrier does it.
   */
  warmTransfer?(providerCallId: string, request: WarmTransferRequest): Promise<{ supervisorCallId: string }>;
  /**
   * Replaces what a live call is doing with `twiml` (Twilio's call update): a held caller leaves the hold to be
   * connected, or to hear why not. A call that is over (or not the carrier's) is a `RejectedError`. Where the
   * carrier does warm transfers.
   */
  updateCall?(providerCallId: string, twiml: string): Promise<void>;
  /**
   * What the carrier charged for a call that has ended, in micro-dollars (USD); undefined while it has not
   * priced it yet (carriers price a call some time after it ends).
   */
  callPrice(providerCallId: string): Promise<number | undefined>;
}

/** A text message Parley asks a carrier to send. */
export interface SmsRequest {
  /** E.164: one of the account's numbers, and the recipient. */
  from: string;
  to: string;
  body: string;
  /** Where the carrier posts each change of the message's status (sent, delivered, failed), signed as Twilio signs. */
  statusCallbackUrl: string;
}

/** What a carrier does with text messages. */
export interface CarrierMessages {
  /**
   * Hands a message to the carrier, which answers its id for the message and its status (`queued`, as a rule).
   * A message the carrier refuses (not a number it can reach, a sender it does not know) is a `RejectedError`
   * whose text says why.
   */
  sendSms(request: SmsRequest): Promise<{ providerMessageId: string; status: string }>;
  /**
   * Hands a WhatsApp message to the carrier, as `sendSms` does a text: the carrier answers its id and status
   * (`queued`), then posts each status change (sent, delivered, read, failed, undelivered) to the callback. A
   * message it refuses is a `RejectedError`. Where the carrier does WhatsApp.
   */
  sendWhatsApp?(request: WhatsAppRequest): Promise<{ providerMessageId: string; status: string }>;
}

/**
 * A WhatsApp message Parley asks a carrier to send from a sender (one of the account's numbers) to a customer,
 * both E.164 without the `whatsapp:` prefix Twilio's addresses carry (the adapter adds it). Free-form, the
 * text is `body`; a template is sent by the carrier's id of it (Twilio's Content SID) with its variables where
 * the carrier knows it, else as its rendered text in `body`.
 */
export interface WhatsAppRequest {
  from: string;
  to: string;
  body: string;
  template?: { contentSid: string; variables: Record<string, string> };
  statusCallbackUrl: string;
}
