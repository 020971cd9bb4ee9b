package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/emiago/sipgo/sip"
	"github.com/zaf/g711"
)

// legRequest is how to reach a transfer's target as a call of the gateway's own, for a far end that refuses
// the REFER: through the call's trunk (src/sip/outbound.ts), as an outbound call is placed.
type legRequest struct {
	From               string `json:"from"`
	Host               string `json:"host"`
	Port               int    `json:"port"`
	Proxy              bool   `json:"proxy"`
	Username           string `json:"username"`
	Password           string `json:"password"`
	RingTimeoutSeconds int    `json:"ringTimeoutSeconds"`
}

// errLegLeft: the transferred party hung up.
var errLegLeft = errors.New("the transferred party ended the call")

// secondLeg is a transfer's target dialed by the gateway, to be joined to the caller once Parley has left the
// call. Its dialog lives until the leg or the caller's call ends.
type secondLeg struct {
	// ready is closed once the leg is answered (med set) or has failed (status and code set).
	ready  chan struct{}
	med    *diago.DialogMedia
	over   <-chan struct{}
	status string
	code   int
	// When the two were joined and parted, for the transfer's duration.
	mu               sync.Mutex
	joined, finished time.Time
}

// dialLeg dials `target` for the call `c` through the trunk `request` describes; the leg is rung out, or
// called off when the caller's call ends first.
func (g *gateway) dialLeg(c *call, target sip.Uri, request legRequest) (*secondLeg, error) {
	dialog, err := g.dg.NewDialog(target, diago.NewDialogOptions{TransportID: outgoingTransport})
	if err != nil {
		return nil, err
	}
	l := &secondLeg{ready: make(chan struct{}), status: "failed"}
	headers := []sip.Header{&sip.FromHeader{
		Address: sip.Uri{Scheme: "sip", User: request.From, Host: g.settings.publicHost},
		Params:  sip.NewParams(),
	}}
	if request.Proxy {
		headers = append(headers, sip.NewHeader("Route", fmt.Sprintf("<sip:%s;lr>", net.JoinHostPort(request.Host, strconv.Itoa(request.Port)))))
	}
	go func() {
		defer func() { _ = dialog.Close() }()
		ringCtx, stopRinging := context.WithTimeout(c.ctx, time.Duration(request.RingTimeoutSeconds)*time.Second)
		med, err := dialog.Invite(ringCtx, diago.InviteClientOptions{
			Username: request.Username, Password: request.Password, Headers: headers, RTPNAT: media.RTPNATSymetric,
		})
		stopRinging()
		if err == nil {
			err = dialog.Ack(c.ctx)
		}
		if err != nil {
			notice := g.unanswered(c.ctx, ringCtx, c.sid, err)
			l.status, l.code = notice.Status, notice.Code
			close(l.ready)
			return
		}
		l.med, l.over = med, dialog.Context().Done()
		close(l.ready)
		select {
		case <-c.ctx.Done():
		case <-l.over:
		}
		hangupCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = dialog.Hangup(hangupCtx)
	}()
	return l, nil
}

// outcome is how the transfer went, as the gateway tells Parley: the leg's failure, or `completed` with the
// seconds the two talked; `canceled` when the caller left before the leg was answered.
func (l *secondLeg) outcome(callSid string) map[string]any {
	notice := map[string]any{"callSid": callSid, "status": "canceled"}
	select {
	case <-l.ready:
	default:
		return notice
	}
	if l.med == nil {
		notice["status"], notice["code"] = l.status, l.code
		return notice
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	notice["status"], notice["duration"] = "completed", 0
	if !l.joined.IsZero() {
		notice["duration"] = int(l.finished.Sub(l.joined).Seconds())
	}
	return notice
}

// join connects the caller to the leg once it answers: the caller's jitter-buffered audio goes to the leg and
// the leg's to the caller's playout, one frame each per 20 ms, until either hangs up. The caller hears silence
// while the leg rings; keys are not passed between them.
func (b *bridge) join(ctx context.Context, l *secondLeg) error {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return errFarEndLeft
	}
	if l.med == nil {
		return errLegLeft
	}
	props := diago.MediaProps{}
	reader, err := l.med.AudioReader(diago.WithAudioReaderMediaProps(&props))
	if err != nil {
		return err
	}
	writer, err := l.med.AudioWriter()
	if err != nil {
		return err
	}
	legAlaw, legPT := strings.EqualFold(props.Codec.Name, "pcma"), props.Codec.PayloadTypeRecv()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-l.over:
			cancel(errLegLeft)
		case <-ctx.Done():
		}
	}()
	heard := newJitterBuffer(jitterDepth, jitterWindow)
	go func() {
		buf := make([]byte, media.RTPBufSize)
		for ctx.Err() == nil {
			n, err := reader.Read(buf)
			if err != nil {
				cancel(errLegLeft)
				return
			}
			header := l.med.RTPPacketReader.PacketHeader
			if header.PayloadType != legPT || n == 0 {
				continue
			}
			frame := append([]byte(nil), buf[:n]...)
			if legAlaw {
				frame = g711.Alaw2Ulaw(frame)
			}
			heard.put(header.SequenceNumber, frame)
		}
	}()
	l.mu.Lock()
	l.joined = time.Now()
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.finished = time.Now()
		l.mu.Unlock()
	}()
	b.log.Info("joined the caller to the transfer's second leg")
	go func() { cancel(b.relay(ctx, heard, writer, legAlaw)) }()
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
		return cause
	}
	return errFarEndLeft
}

// relay moves one frame each way every 20 ms: the caller's to the leg (silence where it has none), the leg's
// into the caller's playout.
func (b *bridge) relay(ctx context.Context, heard *jitterBuffer, toLeg interface{ Write([]byte) (int, error) }, legAlaw bool) error {
	return b.eachFrame(ctx, func(frame []byte) error {
		if legAlaw {
			frame = g711.Ulaw2Alaw(frame)
		}
		if _, err := toLeg.Write(frame); err != nil {
			return errLegLeft
		}
		if frame := heard.take(); frame != nil {
			b.out.push(frame)
		}
		return nil
	})
}
