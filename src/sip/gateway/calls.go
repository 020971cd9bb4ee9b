package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/sipgo/sip"
)

// call is one live call of the gateway, inbound or outbound, named by the id Parley knows it by.
type call struct {
	sid string
	// ctx ends with the call; cancel ends it.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// refer sends a REFER on the call's dialog (once answered).
	refer atomic.Pointer[func(ctx context.Context, target sip.Uri, onNotify func(int)) error]
	// referred: the far end accepted a REFER; transfer carries its outcome, the final NOTIFY's status code.
	referred atomic.Bool
	transfer chan int
	// leg: the far end refused a REFER, and the gateway dialed the transfer's target itself; or a warm
	// transfer's supervisor (warm.go), whose hold and briefing `warm` holds (set before `leg`).
	leg  atomic.Pointer[secondLeg]
	warm atomic.Pointer[warmTransfer]
}

var errHangupRequested = errors.New("Parley asked to hang up")

// How long a far end gets to accept a REFER before the gateway dials the target itself.
const referWait = 5 * time.Second

// statusNotice is what the gateway tells Parley of a call, in the carrier statuses Parley follows (Twilio's).
type statusNotice struct {
	CallSid string `json:"callSid"`
	Status  string `json:"status"`
	// The SIP status code of a failed call, for the logs.
	Code int `json:"code,omitempty"`
	// How long after the answer the first frame with sound went to the caller (the greeting).
	FirstSoundMs int64 `json:"firstSoundMs,omitempty"`
}

type gateway struct {
	log       *slog.Logger
	dg        *diago.Diago
	ctl       *control
	admission *admission
	guard     *guard
	settings  settings
	calls     sync.Map
	draining  atomic.Bool
	live      sync.WaitGroup
}

func (g *gateway) tellStatus(notice statusNotice) {
	g.ctl.tell("status", notice)
}

// track registers a call until `done` is called; a second call under the same id is refused.
func (g *gateway) track(c *call) (done func(), ok bool) {
	if _, loaded := g.calls.LoadOrStore(c.sid, c); loaded {
		return nil, false
	}
	g.live.Add(1)
	return func() {
		g.calls.Delete(c.sid)
		g.live.Done()
	}, true
}

// hangup ends a call Parley names: its ringing is cancelled, or its dialog hung up.
func (g *gateway) hangup(_ context.Context, raw json.RawMessage) (any, error) {
	var request struct {
		CallSid string `json:"callSid"`
	}
	if err := json.Unmarshal(raw, &request); err != nil {
		return nil, err
	}
	value, ok := g.calls.Load(request.CallSid)
	if ok {
		value.(*call).cancel(errHangupRequested)
	}
	return map[string]bool{"found": ok}, nil
}

// transfer hands an answered call to `target`. A REFER first: answered once the far end accepts it (202); the
// outcome (the final NOTIFY) is told to Parley later, and the dialog is hung up then. A far end that refuses it
// (or never answers it) has the target dialed by the gateway through the trunk (`leg`), joined to the caller
// once Parley leaves; that outcome is told when the two part. The caller of a leg that is not answered hears
// `apology` (synthesized by Parley as the leg is dialed) before the call ends.
func (g *gateway) transfer(ctx context.Context, raw json.RawMessage) (any, error) {
	var request struct {
		CallSid string      `json:"callSid"`
		Target  string      `json:"target"`
		Leg     *legRequest `json:"leg"`
		Apology string      `json:"apology"`
	}
	if err := json.Unmarshal(raw, &request); err != nil {
		return nil, err
	}
	c, target, refer, err := g.transferable(request.CallSid, request.Target)
	if err != nil {
		return nil, err
	}
	referCtx, cancel := context.WithTimeout(ctx, referWait)
	defer cancel()
	err = refer(referCtx, target, func(code int) {
		if code < 200 {
			return
		}
		select {
		case c.transfer <- code:
		default:
		}
	})
	if err == nil {
		c.referred.Store(true)
		return map[string]any{"accepted": true, "bridged": false}, nil
	}
	if request.Leg == nil {
		return nil, fmt.Errorf("the far end did not accept the transfer: %w", err)
	}
	g.log.Info("the far end refused a REFER: dialing the transfer's target", "callSid", c.sid, "error", err.Error())
	l, err := g.dialLeg(c, target, *request.Leg)
	if err != nil {
		return nil, fmt.Errorf("could not dial the transfer's target: %w", err)
	}
	l.apology = g.speak(c.ctx, request.Apology)
	c.leg.Store(l)
	return map[string]any{"accepted": true, "bridged": true}, nil
}

// transferable finds the answered call a transfer is asked for, not being transferred already, and its target.
func (g *gateway) transferable(callSid, rawTarget string) (*call, sip.Uri, func(context.Context, sip.Uri, func(int)) error, error) {
	var target sip.Uri
	value, ok := g.calls.Load(callSid)
	if !ok {
		return nil, target, nil, fmt.Errorf("no live call %s", callSid)
	}
	c := value.(*call)
	refer := c.refer.Load()
	if refer == nil {
		return nil, target, nil, fmt.Errorf("call %s is not answered", callSid)
	}
	if err := sip.ParseUri(rawTarget, &target); err != nil {
		return nil, target, nil, fmt.Errorf("not a SIP URI: %s", rawTarget)
	}
	if c.referred.Load() || c.leg.Load() != nil || c.warm.Load() != nil {
		return nil, target, nil, fmt.Errorf("call %s is being transferred already", callSid)
	}
	return c, target, *refer, nil
}

// awaitTransfer waits, after Parley has left a call it transferred, for the far end to say how the transfer
// went, and tells Parley; the caller's dialog is hung up after it.
func (g *gateway) awaitTransfer(c *call, limit time.Duration) {
	status, code := "no-answer", 0
	select {
	case code = <-c.transfer:
		status = transferStatus(code)
	case <-time.After(limit):
	}
	g.ctl.tell("transfer", map[string]any{"callSid": c.sid, "status": status, "code": code})
}

// transferStatus is a REFER's final NOTIFY as a `<Dial>` outcome in Twilio's words.
func transferStatus(code int) string {
	switch {
	case code >= 200 && code < 300:
		return "answered"
	case code == 486 || code == 600:
		return "busy"
	case code == 408 || code == 480 || code == 487:
		return "no-answer"
	default:
		return "failed"
	}
}

// finalStatus is how an unanswered outbound call ended, in Twilio's words.
func finalStatus(code int) string {
	switch code {
	case 486, 600:
		return "busy"
	default:
		return "failed"
	}
}

// drain refuses new calls from now on and waits, until the deadline, for the live ones to end.
func (g *gateway) drain(_ context.Context, raw json.RawMessage) (any, error) {
	var request struct {
		DeadlineMs int64 `json:"deadlineMs"`
	}
	_ = json.Unmarshal(raw, &request)
	g.draining.Store(true)
	done := make(chan struct{})
	go func() {
		g.live.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(time.UnixMilli(request.DeadlineMs))):
		g.calls.Range(func(_, value any) bool {
			value.(*call).cancel(errHangupRequested)
			return true
		})
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	return map[string]bool{"drained": true}, nil
}
