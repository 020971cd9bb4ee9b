package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// dialRequest is a call Parley asks the gateway to place through a trunk (src/sip/outbound.ts): the numbers
// already written as the trunk's calling format, the trunk's address and credentials, and where to stream the
// answered call.
type dialRequest struct {
	// How to reach the trunk: the same fields as a transfer's second leg.
	legRequest
	CallSid string       `json:"callSid"`
	To      string       `json:"to"`
	Stream  streamTarget `json:"stream"`
}

var errDialDuplicate = errors.New("a call with this id is live already")

// dial places the call and answers at once; how it goes is told as status notices. Asked again for a call it
// is placing (a retry whose first answer was lost), it dials nobody.
func (g *gateway) dial(_ context.Context, raw json.RawMessage) (any, error) {
	var request dialRequest
	if err := json.Unmarshal(raw, &request); err != nil {
		return nil, err
	}
	if g.draining.Load() {
		return nil, errors.New("the SIP gateway is shutting down")
	}
	if request.Port == 0 {
		request.Port = 5060
	}
	recipient := sip.Uri{Scheme: "sip", User: request.To, Host: request.Host, Port: request.Port}
	dialog, err := g.dg.NewDialog(recipient, diago.NewDialogOptions{TransportID: outgoingTransport})
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithCancelCause(context.Background())
	c := &call{sid: request.CallSid, ctx: callCtx, cancel: cancel, transfer: make(chan int, 1)}
	untrack, ok := g.track(c)
	if !ok {
		cancel(errDialDuplicate)
		_ = dialog.Close()
		return map[string]bool{"placed": false}, nil
	}
	// The trunk's far end is heard at the trusted rate: its answers and its RTP.
	if ips, err := net.LookupIP(request.Host); err == nil {
		for _, ip := range ips {
			g.guard.trust(ip.String(), trustFor)
		}
	}
	go func() {
		defer untrack()
		defer cancel(nil)
		defer func() { _ = dialog.Close() }()
		g.placeCall(callCtx, c, dialog, request)
	}()
	return map[string]bool{"placed": true}, nil
}

func (g *gateway) placeCall(ctx context.Context, c *call, dialog *diago.DialogClientSession, request dialRequest) {
	ringCtx, stopRinging := context.WithTimeout(ctx, time.Duration(request.RingTimeoutSeconds)*time.Second)
	defer stopRinging()
	var rang atomic.Bool
	headers := []sip.Header{&sip.FromHeader{
		Address: sip.Uri{Scheme: "sip", User: request.From, Host: g.settings.publicHost},
		Params:  sip.NewParams(),
	}}
	if request.Proxy {
		headers = append(headers, sip.NewHeader("Route", fmt.Sprintf("<sip:%s;lr>", net.JoinHostPort(request.Host, strconv.Itoa(request.Port)))))
	}
	med, err := dialog.Invite(ringCtx, diago.InviteClientOptions{
		Username: request.Username,
		Password: request.Password,
		Headers:  headers,
		RTPNAT:   media.RTPNATSymetric,
		OnResponse: func(res *sip.Response) error {
			if (res.StatusCode == 180 || res.StatusCode == 183) && rang.CompareAndSwap(false, true) {
				g.tellStatus(statusNotice{CallSid: c.sid, Status: "ringing"})
			}
			return nil
		},
	})
	if err != nil {
		g.tellStatus(g.unanswered(ctx, ringCtx, c.sid, err))
		return
	}
	if err := dialog.Ack(ctx); err != nil {
		g.log.Warn("could not acknowledge an answer", "callSid", c.sid, "error", err)
		_ = med.Close()
		g.tellStatus(statusNotice{CallSid: c.sid, Status: "failed"})
		return
	}
	refer := func(ctx context.Context, target sip.Uri, onNotify func(int)) error {
		return dialog.ReferOptions(ctx, target, diago.ReferClientOptions{OnNotify: onNotify})
	}
	c.refer.Store(&refer)
	g.tellStatus(statusNotice{CallSid: c.sid, Status: "in-progress"})
	g.bridgeCall(ctx, c, med, request.Stream)
	hangupCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = dialog.Hangup(hangupCtx)
}

// unanswered is how a call that was never answered ended: busy, rung out, called off by Parley, or failed.
func (g *gateway) unanswered(ctx, ringCtx context.Context, sid string, err error) statusNotice {
	var response *sipgo.ErrDialogResponse
	if errors.As(err, &response) {
		g.log.Info("the far end refused a call", "callSid", sid, "code", response.Res.StatusCode)
		return statusNotice{CallSid: sid, Status: finalStatus(response.Res.StatusCode), Code: response.Res.StatusCode}
	}
	var plain sipgo.ErrDialogResponse
	if errors.As(err, &plain) {
		g.log.Info("the far end refused a call", "callSid", sid, "code", plain.Res.StatusCode)
		return statusNotice{CallSid: sid, Status: finalStatus(plain.Res.StatusCode), Code: plain.Res.StatusCode}
	}
	switch {
	case ctx.Err() != nil:
		return statusNotice{CallSid: sid, Status: "canceled"}
	case ringCtx.Err() != nil:
		return statusNotice{CallSid: sid, Status: "no-answer"}
	default:
		g.log.Info("a call could not be placed", "callSid", sid, "error", err)
		return statusNotice{CallSid: sid, Status: "failed"}
	}
}
