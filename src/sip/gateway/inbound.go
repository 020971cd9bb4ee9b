package main

import (
	"context"
	"errors"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/emiago/sipgo/sip"
)

// What Parley decides about a call to a trunk's number (src/sip/inbound.ts): refused with a SIP status, or
// admitted as a call of its own, streamed to the media role.
type admitAnswer struct {
	Code    int          `json:"code"`
	Reason  string       `json:"reason"`
	CallSid string       `json:"callSid"`
	Stream  streamTarget `json:"stream"`
}

// How long a far end gets to say how a transfer went once it accepted it.
const transferOutcomeWait = 45 * time.Second

// inbound serves an INVITE the admission let in: Parley admits the call (or refuses it: busy, not in service),
// the gateway answers it and bridges it to the media role until either end hangs up.
func (g *gateway) inbound(d *diago.DialogServerSession) {
	req := d.InviteRequest
	found, ok := g.admission.trunkOf(req)
	if !ok {
		_ = d.Respond(500, "Server Internal Error", nil)
		return
	}
	ctx, cancelAsk := context.WithTimeout(d.Context(), 5*time.Second)
	var answer admitAnswer
	err := g.ctl.ask(ctx, "admit", map[string]any{
		"trunkId": found.ID, "number": req.Recipient.User, "caller": callerOf(req),
		"sipCallId": req.CallID().Value(), "source": hostOf(req.Source()),
	}, &answer)
	cancelAsk()
	if err != nil {
		g.log.Warn("Parley could not admit a call", "error", err)
		_ = d.Respond(503, "Service Unavailable", nil)
		return
	}
	if answer.Code != 0 {
		_ = d.Respond(answer.Code, answer.Reason, nil)
		return
	}
	callCtx, cancel := context.WithCancelCause(d.Context())
	defer cancel(nil)
	c := &call{sid: answer.CallSid, ctx: callCtx, cancel: cancel, transfer: make(chan int, 1)}
	untrack, ok := g.track(c)
	if !ok {
		_ = d.Respond(500, "Server Internal Error", nil)
		return
	}
	defer untrack()
	refer := func(ctx context.Context, target sip.Uri, onNotify func(int)) error {
		return d.ReferOptions(ctx, target, diago.ReferServerOptions{OnNotify: onNotify})
	}
	med, err := d.Answer(diago.AnswerOptions{RTPNAT: media.RTPNATSymetric})
	if err != nil {
		// The caller gave up while it was being answered, or its offer had no codec in common.
		g.log.Info("could not answer a call", "callSid", c.sid, "error", err)
		g.tellStatus(statusNotice{CallSid: c.sid, Status: "canceled"})
		return
	}
	c.refer.Store(&refer)
	g.tellStatus(statusNotice{CallSid: c.sid, Status: "in-progress"})
	g.bridgeCall(callCtx, c, med, answer.Stream)
}

// bridgeCall streams an answered call to the media role until it ends, then tells Parley it is over; a call
// Parley transferred stays up until the far end says how the transfer went.
func (g *gateway) bridgeCall(ctx context.Context, c *call, med *diago.DialogMedia, target streamTarget) {
	notice := statusNotice{CallSid: c.sid, Status: "completed"}
	defer func() { g.tellStatus(notice) }()
	stream, err := openStream(ctx, target, c.sid)
	if err != nil {
		g.log.Warn("could not open the call's media stream", "callSid", c.sid, "error", err)
		return
	}
	b, err := newBridge(g.log.With("callSid", c.sid), med, stream)
	if err != nil {
		g.log.Warn("could not set the call's media up", "callSid", c.sid, "error", err)
		stream.stop()
		return
	}
	cause := b.run(ctx, c)
	if first := b.firstSound.Load(); first != 0 {
		notice.FirstSoundMs = time.Unix(0, first).Sub(b.answered).Milliseconds()
	}
	// One line per call: how it ended and what its media did (the SIP bench reads these).
	g.log.Info("a SIP call's media ended", "callSid", c.sid, "cause", cause.Error(), "seconds", int(time.Since(b.answered).Seconds()),
		"packetsIn", b.packetsIn.Load(), "framesOut", b.framesOut.Load(), "firstSoundMs", notice.FirstSoundMs,
		"sendJitterP99Us", b.stats.p99(), "peerJitterMaxMs", b.stats.peerMaxMs.Load())
	switch l := c.leg.Load(); {
	case l != nil && c.warm.Load() != nil:
		g.ctl.tell("warm-transfer", l.warmOutcome(c.sid, cause))
	case l != nil:
		g.ctl.tell("transfer", l.outcome(c.sid))
	case errors.Is(cause, errParleyLeft) && c.referred.Load():
		g.awaitTransfer(c, transferOutcomeWait)
	}
}
