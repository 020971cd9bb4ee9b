package main

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emiago/diago"
	"github.com/emiago/diago/media"
	"github.com/zaf/g711"
)

const (
	// The most of Parley's audio waiting for the far end (60 s); Parley paces itself, so it never comes near.
	maxPlayoutFrames = 3000
	// The caller's audio waits this many frames (40 ms) in the jitter buffer before it plays, and a packet
	// more than jitterWindow frames ahead starts the stream over.
	jitterDepth  = 2
	jitterWindow = 50
	// A far end that sends no RTP for this long is gone (a NAT that forgot it, a crashed phone): hang up.
	mediaTimeout = 60 * time.Second
)

// How a bridged call ended, from the gateway's side.
var (
	errFarEndLeft   = errors.New("the far end ended the call")
	errParleyLeft   = errors.New("Parley ended the call")
	errMediaTimeout = errors.New("no RTP from the far end")
)

// bridge carries one answered call between its RTP session and its Media Streams socket: the caller's audio,
// jitter-buffered, to Parley every 20 ms (silence where packets are missing, so the engine's clocks keep
// running); Parley's audio to the caller every 20 ms (silence while it says nothing); keys both ways as RFC 4733
// events. A-law calls are converted to and from μ-law, which the media role speaks.
type bridge struct {
	log      *slog.Logger
	stream   *mediaStream
	med      *diago.DialogMedia
	alaw     bool
	audioPT  uint8
	reader   io.Reader
	writer   io.Writer
	keysOut  *diago.DTMFWriter
	out      *playout
	inbox    *jitterBuffer
	lastRTP  atomic.Int64
	answered time.Time
	// parleyGone: Parley has left the call (a transfer's leg or hold goes on), so its audio holds no keys to send.
	parleyGone atomic.Bool
	// The leg the caller is joined to, which the caller's keys go to; and the keys it pressed, for the caller.
	joinedLeg    atomic.Pointer[legAudio]
	keysToCaller chan rune
	// firstSound is when the first frame with sound went to the caller (the greeting), for the bench.
	firstSound atomic.Int64
	// What went each way, for the log at the end of a call.
	packetsIn, framesOut atomic.Int64
	stats                callStats
}

func newBridge(log *slog.Logger, med *diago.DialogMedia, stream *mediaStream) (*bridge, error) {
	props := diago.MediaProps{}
	keysIn := &diago.DTMFReader{}
	reader, err := med.AudioReader(diago.WithAudioReaderMediaProps(&props))
	if err != nil {
		return nil, err
	}
	// A far end that offered no telephone-event codec sends no keys as events (its keys arrive in-band).
	if keyed, err := med.AudioReader(diago.WithAudioReaderDTMF(keysIn)); err == nil {
		reader = keyed
	} else {
		keysIn = nil
	}
	keysOut := &diago.DTMFWriter{}
	writer, err := med.AudioWriter(diago.WithAudioWriterDTMF(keysOut))
	if err != nil {
		keysOut = nil
		if writer, err = med.AudioWriter(); err != nil {
			return nil, err
		}
	}
	b := &bridge{
		log: log, stream: stream, med: med, reader: reader, writer: writer, keysOut: keysOut,
		alaw:    strings.EqualFold(props.Codec.Name, "pcma"),
		audioPT: props.Codec.PayloadTypeRecv(),
		out:     newPlayout(maxPlayoutFrames),
		inbox:   newJitterBuffer(jitterDepth, jitterWindow),
		// A few keys' worth: more pressed within a key's 140 ms are dropped.
		keysToCaller: make(chan rune, 8),
	}
	b.stats.listenRTCP(med, med.RTPPacketWriter.SSRC)
	if keysIn != nil {
		keysIn.OnDTMF(func(digit rune) error {
			b.callerKey(digit)
			return nil
		})
	}
	return b, nil
}

// run carries audio until either end leaves or `ctx` ends (the dialog ended, or Parley asked to hang up);
// the result says which. Parley hears `stop` unless it left first. A call Parley left after handing it to a
// second leg (`c.leg`, a transfer the far end would not take as a REFER, or a warm transfer's supervisor) goes
// on with the caller's side of the bridge joined to that leg until either hangs up.
func (b *bridge) run(ctx context.Context, c *call) error {
	callerCtx, endCall := context.WithCancelCause(ctx)
	defer endCall(nil)
	parleyCtx, endParley := context.WithCancelCause(callerCtx)
	defer endParley(nil)
	b.answered = time.Now()
	b.lastRTP.Store(time.Now().UnixNano())
	go func() { endCall(b.receiveRTP(callerCtx)) }()
	go func() { endCall(b.play(callerCtx)) }()
	go func() { endParley(b.forward(parleyCtx)) }()
	go func() { endParley(b.listen()) }()
	<-parleyCtx.Done()
	cause := context.Cause(parleyCtx)
	if !errors.Is(cause, errParleyLeft) {
		b.stream.stop()
	} else {
		_ = b.stream.conn.Close()
		b.parleyGone.Store(true)
		if l := c.leg.Load(); l != nil {
			if w := c.warm.Load(); w != nil {
				return b.warmJoin(callerCtx, l, w)
			}
			err := b.join(callerCtx, l)
			if errors.Is(err, errLegLeft) && l.med == nil {
				// Nobody took the transfer: the caller is told so before the call ends.
				return b.apologize(callerCtx, l.apology, err)
			}
			return err
		}
	}
	if errors.Is(cause, context.Canceled) {
		return errFarEndLeft
	}
	return cause
}

// callerKey takes a key the caller pressed to Parley, or once Parley has left to the leg the caller is joined to.
func (b *bridge) callerKey(digit rune) {
	if !b.parleyGone.Load() {
		if err := b.stream.key(digit); err != nil {
			b.log.Debug("could not report a key to Parley", "error", err)
		}
		return
	}
	if leg := b.joinedLeg.Load(); leg != nil {
		select {
		case leg.keys <- digit:
		default:
		}
	}
}

// receiveRTP reads the caller's audio packets (keys are taken out on the way by the DTMF reader).
func (b *bridge) receiveRTP(ctx context.Context) error {
	buf := make([]byte, media.RTPBufSize)
	for ctx.Err() == nil {
		n, err := b.reader.Read(buf)
		if err != nil {
			return errFarEndLeft
		}
		b.lastRTP.Store(time.Now().UnixNano())
		if b.med.RTPPacketReader.PacketHeader.PayloadType != b.audioPT || n == 0 {
			continue
		}
		b.packetsIn.Add(1)
		frame := make([]byte, n)
		copy(frame, buf[:n])
		if b.alaw {
			frame = g711.Alaw2Ulaw(frame)
		}
		b.inbox.put(b.med.RTPPacketReader.PacketHeader.SequenceNumber, frame)
	}
	return nil
}

// forward sends the caller's audio to Parley on a steady 20 ms clock, out of the jitter buffer.
func (b *bridge) forward(ctx context.Context) error {
	return b.eachFrame(ctx, func(frame []byte) error {
		if err := b.stream.audio(frame); err != nil {
			return errParleyLeft
		}
		return nil
	})
}

// eachFrame hands `send` the caller's next frame every 20 ms (silence where the jitter buffer has none) until
// ctx ends, `send` fails, or the caller's RTP stops.
func (b *bridge) eachFrame(ctx context.Context, send func(frame []byte) error) error {
	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()
	silence := make([]byte, frameBytes)
	for i := range silence {
		silence[i] = ulawSilence
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		if time.Since(time.Unix(0, b.lastRTP.Load())) > mediaTimeout {
			return errMediaTimeout
		}
		frame := b.inbox.take()
		if frame == nil {
			frame = silence
		}
		if err := send(frame); err != nil {
			return err
		}
	}
}

// listen reads Parley's messages into the playout until Parley closes the stream.
func (b *bridge) listen() error {
	for {
		message, err := b.stream.read()
		if err != nil {
			return errParleyLeft
		}
		switch message.Event {
		case "media":
			if message.Media == nil {
				continue
			}
			if payload, err := base64.StdEncoding.DecodeString(message.Media.Payload); err == nil {
				b.out.push(payload)
			}
		case "mark":
			if message.Mark != nil {
				b.out.mark(message.Mark.Name)
			}
		case "clear":
			for _, name := range b.out.clear() {
				_ = b.stream.played(name)
			}
		}
	}
}

// play writes one frame to the caller every 20 ms (the RTP writer keeps the clock), silence while Parley is
// quiet; a keypad tone of Parley's goes as a telephone event instead of as audio, as do the keys a joined leg
// pressed.
func (b *bridge) play(ctx context.Context) error {
	silence := make([]byte, frameBytes)
	silenceCode := ulawSilence
	if b.alaw {
		silenceCode = alawSilence
	}
	for i := range silence {
		silence[i] = silenceCode
	}
	var tones toneDetector
	for ctx.Err() == nil {
		select {
		case digit := <-b.keysToCaller:
			if b.keysOut != nil {
				b.sendKey(digit, &tones)
			}
			continue
		default:
		}
		frame, marks := b.out.next()
		b.echo(marks)
		payload := silence
		if frame != nil {
			digit, tone := rune(0), false
			if b.keysOut != nil && !b.parleyGone.Load() {
				digit, tone = tones.feed(frame)
			}
			if digit != 0 {
				b.sendKey(digit, &tones)
				continue
			}
			if !tone {
				payload = frame
				if b.alaw {
					payload = g711.Ulaw2Alaw(frame)
				}
				if b.firstSound.Load() == 0 && !isQuiet(frame) {
					b.firstSound.Store(time.Now().UnixNano())
				}
			}
		}
		if _, err := b.writer.Write(payload); err != nil {
			return errFarEndLeft
		}
		b.stats.sent(time.Now())
		b.framesOut.Add(1)
		b.echo(b.out.played())
	}
	return nil
}

// sendKey sends a digit as RFC 4733 events (about 140 ms), then drops the rest of the tone and the pause after
// it that Parley (or a joined leg) sent meanwhile, so the caller's audio stays in step with its clock.
func (b *bridge) sendKey(digit rune, tones *toneDetector) {
	started := time.Now()
	if err := b.keysOut.WriteDTMF(digit); err != nil {
		b.log.Debug("could not send a key as a telephone event", "error", err)
	}
	elapsed := time.Since(started)
	b.log.Debug("sent a key as a telephone event", "key", string(digit), "ms", elapsed.Milliseconds())
	b.med.RTPPacketWriter.DelayTimestamp(uint32(elapsed.Seconds() * 8000))
	for skip := int(elapsed / (20 * time.Millisecond)); skip > 0; skip-- {
		next := b.out.peek()
		if next == nil {
			break
		}
		if _, tone := tones.feed(next); !tone && !isQuiet(next) {
			break
		}
		_, marks := b.out.next()
		b.echo(marks)
	}
}

func (b *bridge) echo(marks []string) {
	for _, name := range marks {
		_ = b.stream.played(name)
	}
}

func isQuiet(frame []byte) bool {
	_, quiet := classify(frame)
	return quiet
}
