package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
	// callID is the SIP Call-ID of the leg's INVITE, which Parley keeps as the supervisor's call id.
	callID string
	// ready is closed once the leg is answered (med set) or has failed (status and code set).
	ready  chan struct{}
	med    *diago.DialogMedia
	over   <-chan struct{}
	status string
	code   int
	// What the caller hears when the leg is not answered, before the call ends.
	apology *clip
	// When the leg answered, and when the two were joined and parted, for the transfer's duration.
	mu                         sync.Mutex
	answered, joined, finished time.Time
}

// dialLeg dials `target` for the call `c` through the trunk `request` describes; the leg is rung out, or
// called off when the caller's call ends first.
func (g *gateway) dialLeg(c *call, target sip.Uri, request legRequest) (*secondLeg, error) {
	dialog, err := g.dg.NewDialog(target, diago.NewDialogOptions{TransportID: outgoingTransport})
	if err != nil {
		return nil, err
	}
	callID := sip.CallIDHeader(newCallID())
	dialog.InviteRequest.AppendHeader(&callID)
	l := &secondLeg{callID: string(callID), ready: make(chan struct{}), status: "failed", apology: readyClip(nil)}
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
		l.mu.Lock()
		l.answered = time.Now()
		l.mu.Unlock()
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

// newCallID is a fresh SIP Call-ID.
func newCallID() string {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	return hex.EncodeToString(raw)
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

// legAudio is an answered leg's media as the bridge uses it: its audio, read from the moment it answered into a
// jitter buffer of its own, and a writer converting the caller's μ-law where the leg speaks A-law. Its context
// ends with the caller's, or with errLegLeft when the leg hangs up.
type legAudio struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	med    *diago.DialogMedia
	writer io.Writer
	heard  *jitterBuffer
	alaw   bool
	// The caller's keys for the leg, sent as RFC 4733 events where the leg offered them (keysOut set).
	keys    chan rune
	keysOut *diago.DTMFWriter
}

// openLeg starts reading an answered leg's audio.
func (b *bridge) openLeg(ctx context.Context, l *secondLeg) (*legAudio, error) {
	props := diago.MediaProps{}
	reader, err := l.med.AudioReader(diago.WithAudioReaderMediaProps(&props))
	if err != nil {
		return nil, err
	}
	// A leg that offered telephone events trades keys with the caller as events, as the caller's side does.
	keysIn := &diago.DTMFReader{}
	if keyed, err := l.med.AudioReader(diago.WithAudioReaderDTMF(keysIn)); err == nil {
		reader = keyed
	} else {
		keysIn = nil
	}
	keysOut := &diago.DTMFWriter{}
	writer, err := l.med.AudioWriter(diago.WithAudioWriterDTMF(keysOut))
	if err != nil {
		keysOut = nil
		if writer, err = l.med.AudioWriter(); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	leg := &legAudio{
		ctx: ctx, cancel: cancel, med: l.med, writer: writer, heard: newJitterBuffer(jitterDepth, jitterWindow),
		alaw: strings.EqualFold(props.Codec.Name, "pcma"), keys: make(chan rune, 8), keysOut: keysOut,
	}
	if keysIn != nil {
		keysIn.OnDTMF(func(digit rune) error {
			// Keys pressed during a warm transfer's briefing are not the caller's to hear.
			if b.joinedLeg.Load() == leg {
				select {
				case b.keysToCaller <- digit:
				default:
				}
			}
			return nil
		})
	}
	legPT := props.Codec.PayloadTypeRecv()
	go func() {
		select {
		case <-l.over:
			cancel(errLegLeft)
		case <-ctx.Done():
		}
	}()
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
			if leg.alaw {
				frame = g711.Alaw2Ulaw(frame)
			}
			leg.heard.put(header.SequenceNumber, frame)
		}
	}()
	return leg, nil
}

// write sends the leg one μ-law frame.
func (leg *legAudio) write(frame []byte) error {
	if leg.alaw {
		frame = g711.Ulaw2Alaw(frame)
	}
	if _, err := leg.writer.Write(frame); err != nil {
		return errLegLeft
	}
	return nil
}

// join connects the caller to the leg once it answers (the caller hears silence while it rings), as relayLeg
// does; a leg that is not answered leaves errLegLeft.
func (b *bridge) join(ctx context.Context, l *secondLeg) error {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return errFarEndLeft
	}
	if l.med == nil {
		return errLegLeft
	}
	leg, err := b.openLeg(ctx, l)
	if err != nil {
		return err
	}
	defer leg.cancel(nil)
	return b.relayLeg(l, leg)
}

// relayLeg joins the caller and the answered leg: the caller's jitter-buffered audio goes to the leg and the
// leg's to the caller's playout, one frame each per 20 ms, until either hangs up.
func (b *bridge) relayLeg(l *secondLeg, leg *legAudio) error {
	l.mu.Lock()
	l.joined = time.Now()
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.finished = time.Now()
		l.mu.Unlock()
	}()
	b.log.Info("joined the caller to the transfer's second leg")
	b.joinedLeg.Store(leg)
	defer b.joinedLeg.Store(nil)
	go func() { leg.cancel(b.relay(leg)) }()
	<-leg.ctx.Done()
	return endCause(leg.ctx)
}

// endCause is why a phase of a bridged call ended: the cause its context was cancelled with, the caller's
// leaving where nothing more precise was said.
func endCause(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return errFarEndLeft
}

// relay moves one frame each way every 20 ms: the caller's to the leg (silence where it has none), the leg's
// into the caller's playout; a key the caller pressed goes to the leg in its frame's place.
func (b *bridge) relay(leg *legAudio) error {
	return b.eachFrame(leg.ctx, func(frame []byte) error {
		select {
		case digit := <-leg.keys:
			b.log.Debug("sending a key to the transfer's leg", "key", string(digit), "asEvents", leg.keysOut != nil)
			leg.sendKey(digit, b.inbox)
			return nil
		default:
		}
		if err := leg.write(frame); err != nil {
			return err
		}
		if frame := leg.heard.take(); frame != nil {
			b.out.push(frame)
		}
		return nil
	})
}

// sendKey sends the leg a key the caller pressed as RFC 4733 events (about 140 ms), then drops both sides'
// audio of that time, so that neither waits behind it from then on.
func (leg *legAudio) sendKey(digit rune, callerAudio *jitterBuffer) {
	if leg.keysOut == nil {
		return
	}
	started := time.Now()
	if err := leg.keysOut.WriteDTMF(digit); err != nil {
		return
	}
	elapsed := time.Since(started)
	leg.med.RTPPacketWriter.DelayTimestamp(uint32(elapsed.Seconds() * 8000))
	for skip := int(elapsed / (20 * time.Millisecond)); skip > 0; skip-- {
		callerAudio.take()
		leg.heard.take()
	}
}
