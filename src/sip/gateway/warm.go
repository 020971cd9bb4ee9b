package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// warmRequest is a warm transfer Parley asks for (src/sip/warm-transfer.ts): the supervisor's SIP URI and how to
// reach it through the call's trunk, the hold music (μ-law at 8 kHz, played in a loop; empty: silence) and the
// texts Parley synthesizes for the gateway to play.
type warmRequest struct {
	CallSid   string     `json:"callSid"`
	Target    string     `json:"target"`
	Leg       legRequest `json:"leg"`
	HoldMusic []byte     `json:"holdMusic"`
	Briefing  string     `json:"briefing"`
	Connected string     `json:"connected"`
	Apology   string     `json:"apology"`
}

// warmTransfer is what a warm transfer plays around its supervisor's leg.
type warmTransfer struct {
	holdMusic []byte
	// The supervisor hears the briefing on answering; the caller hears `connected` just before the two are joined.
	briefing, connected *clip
	// onConnected tells Parley the supervisor has been briefed and joined to the caller.
	onConnected func()
}

// The silence between the apology and the hang-up.
const hangUpPause = time.Second

// How many frames of hold music wait in the caller's playout: enough to ride out a late tick, few enough that
// the music stops at once.
const holdAhead = 3

// Why a warm transfer ended without the two talking, as recorded on the call's transfer.
const (
	supervisorLeft = "The supervisor hung up before being connected."
	callerGone     = "The caller hung up before the supervisor was connected."
)

var (
	errPhaseDone     = errors.New("the phase is over")
	ulawSilenceFrame = bytes.Repeat([]byte{ulawSilence}, frameBytes)
)

// warmTransfer holds an answered call for a supervisor: the supervisor is dialed through the trunk as a second
// leg at once (a SIP URI elsewhere never gets the trunk's credentials, which Parley leaves out), the clips are
// asked of Parley meanwhile, and the hold starts once Parley leaves the call. Answers the supervisor leg's
// Call-ID; the outcome is told as `warm-transfer` notices (`connected`, then how it ended).
func (g *gateway) warmTransfer(_ context.Context, raw json.RawMessage) (any, error) {
	var request warmRequest
	if err := json.Unmarshal(raw, &request); err != nil {
		return nil, err
	}
	c, target, _, err := g.transferable(request.CallSid, request.Target)
	if err != nil {
		return nil, err
	}
	w := &warmTransfer{
		holdMusic: request.HoldMusic,
		briefing:  g.speak(c.ctx, request.Briefing),
		connected: g.speak(c.ctx, request.Connected),
		onConnected: func() {
			g.ctl.tell("warm-transfer", map[string]any{"callSid": c.sid, "status": "connected"})
		},
	}
	if !c.warm.CompareAndSwap(nil, w) {
		return nil, fmt.Errorf("call %s is being transferred already", c.sid)
	}
	l, err := g.dialLeg(c, target, request.Leg)
	if err != nil {
		c.warm.Store(nil)
		return nil, fmt.Errorf("could not dial the supervisor: %w", err)
	}
	l.apology = g.speak(c.ctx, request.Apology)
	c.leg.Store(l)
	g.log.Info("holding a caller for a warm transfer: dialing the supervisor", "callSid", c.sid, "supervisorCallId", l.callID)
	return map[string]any{"accepted": true, "supervisorCallId": l.callID}, nil
}

// warmJoin runs a warm transfer once Parley has left the call: the caller hears the hold music while the
// supervisor rings; the supervisor, answering, hears the briefing (the caller still on hold); then the caller
// hears the connected message and the two are joined as a second leg is. A supervisor who does not answer, or
// hangs up before being joined, leaves the caller the apology, and the call ends.
func (b *bridge) warmJoin(ctx context.Context, l *secondLeg, w *warmTransfer) error {
	music := &holdLoop{audio: w.holdMusic}
	err := b.phase(ctx, func([]byte) (bool, error) {
		music.topUp(b.out)
		select {
		case <-l.ready:
			return true, nil
		default:
			return false, nil
		}
	})
	if err != nil {
		return err
	}
	if l.med == nil {
		return b.apologize(ctx, l.apology, errLegLeft)
	}
	leg, err := b.openLeg(ctx, l)
	if err != nil {
		return err
	}
	defer leg.cancel(nil)
	briefing := newReading(w.briefing)
	err = b.phase(leg.ctx, func([]byte) (bool, error) {
		music.topUp(b.out)
		leg.heard.take()
		frame, over := briefing.next()
		if over {
			return true, nil
		}
		if frame == nil {
			frame = ulawSilenceFrame
		}
		return false, leg.write(frame)
	})
	if err == nil {
		err = b.sayToCaller(leg.ctx, w.connected, leg)
	}
	if errors.Is(err, errLegLeft) {
		b.log.Info("the supervisor hung up before being connected")
		return b.apologize(ctx, l.apology, err)
	}
	if err != nil {
		return err
	}
	w.onConnected()
	return b.relayLeg(l, leg)
}

// apologize tells the caller that nobody took the transfer (the clip), and returns `cause` a moment after it has
// been played (its last packets heard before the BYE, as a person pauses before hanging up), for the call to end.
func (b *bridge) apologize(ctx context.Context, apology *clip, cause error) error {
	b.log.Info("nobody took the transfer: telling the caller before hanging up")
	if err := b.sayToCaller(ctx, apology, nil); err != nil {
		return err
	}
	pause := time.Now().Add(hangUpPause)
	if err := b.phase(ctx, func([]byte) (bool, error) { return time.Now().After(pause), nil }); err != nil {
		return err
	}
	return cause
}

// sayToCaller plays a clip to the caller in place of whatever was playing, and returns once it has all gone
// out (or was not synthesized in time: nothing to say). A leg waiting meanwhile hears silence.
func (b *bridge) sayToCaller(ctx context.Context, words *clip, leg *legAudio) error {
	b.out.clear()
	deadline := time.Now().Add(speakTimeout)
	queued := false
	return b.phase(ctx, func([]byte) (bool, error) {
		if leg != nil {
			leg.heard.take()
			if err := leg.write(ulawSilenceFrame); err != nil {
				return false, err
			}
		}
		if !queued {
			select {
			case <-words.done:
				b.out.push(words.audio)
				queued = true
			default:
				return time.Now().After(deadline), nil
			}
		}
		return b.out.pending() == 0, nil
	})
}

// phase calls `step` every 20 ms with the caller's next frame until it says it is done (nil), fails (its error),
// ctx ends (its cause), or the caller's RTP stops.
func (b *bridge) phase(ctx context.Context, step func(callerFrame []byte) (bool, error)) error {
	err := b.eachFrame(ctx, func(frame []byte) error {
		done, err := step(frame)
		if err != nil {
			return err
		}
		if done {
			return errPhaseDone
		}
		return nil
	})
	switch {
	case errors.Is(err, errPhaseDone):
		return nil
	case err != nil:
		return err
	default:
		return endCause(ctx)
	}
}

// holdLoop is the hold music, played round and round into the caller's playout a few frames ahead.
type holdLoop struct {
	audio []byte
	at    int
}

func (m *holdLoop) topUp(out *playout) {
	if len(m.audio) < frameBytes {
		return
	}
	for out.pending() < holdAhead {
		if m.at+frameBytes > len(m.audio) {
			m.at = 0
		}
		out.push(m.audio[m.at : m.at+frameBytes])
		m.at += frameBytes
	}
}

// reading is a clip played frame by frame to a leg: nothing while it is being synthesized, over once it has all
// gone (or was not ready by its deadline).
type reading struct {
	clip     *clip
	deadline time.Time
	at       int
}

func newReading(c *clip) *reading {
	return &reading{clip: c, deadline: time.Now().Add(speakTimeout)}
}

// next is the clip's next frame (the last padded with silence); nil while it is not ready.
func (r *reading) next() (frame []byte, over bool) {
	select {
	case <-r.clip.done:
	default:
		return nil, time.Now().After(r.deadline)
	}
	if r.at >= len(r.clip.audio) {
		return nil, true
	}
	frame = append([]byte(nil), ulawSilenceFrame...)
	r.at += copy(frame, r.clip.audio[r.at:])
	return frame, false
}

// warmOutcome is how a warm transfer went, in the statuses of a supervisor transfer (src/calls/transfers.ts):
// `completed` with the seconds of the supervisor's call (briefing included) once the two were joined; the
// supervisor's `busy`, `no-answer` or `failed`; `failed` too when they hung up before being joined (`cause` is
// errLegLeft); `canceled` when the caller left first.
func (l *secondLeg) warmOutcome(callSid string, cause error) map[string]any {
	notice := l.outcome(callSid)
	select {
	case <-l.ready:
	default:
		notice["error"] = callerGone
		return notice
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.med == nil:
	case l.joined.IsZero():
		notice["status"], notice["error"] = "canceled", callerGone
		if errors.Is(cause, errLegLeft) {
			notice["status"], notice["error"] = "failed", supervisorLeft
		}
		notice["duration"] = int(time.Since(l.answered).Seconds())
	default:
		notice["duration"] = int(l.finished.Sub(l.answered).Seconds())
	}
	if notice["status"] == "canceled" {
		notice["error"] = callerGone
	}
	return notice
}
