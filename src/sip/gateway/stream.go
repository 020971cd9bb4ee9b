package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// mediaStream is the gateway's end of a Media Streams WebSocket to Parley's media role, the protocol Twilio
// and the sandbox carrier speak (src/voice/serializers/twilio.ts): the call's audio goes in as μ-law `media`
// messages on the inbound track, keys as `dtmf`; Parley's audio, `mark` and `clear` come back.
type mediaStream struct {
	conn      net.Conn
	writeMu   sync.Mutex
	streamSid string
	callSid   string
	sequence  int
	chunk     int
	started   time.Time
}

// streamTarget is where a call's audio goes: the media role's URL and the parameters of its `<Stream>`.
type streamTarget struct {
	URL        string            `json:"url"`
	Parameters map[string]string `json:"parameters"`
}

// Parley's messages, as far as the gateway reads them.
type parleyMessage struct {
	Event string `json:"event"`
	Media *struct {
		Payload string `json:"payload"`
	} `json:"media"`
	Mark *struct {
		Name string `json:"name"`
	} `json:"mark"`
}

const accountSid = "parley-sip"

func openStream(ctx context.Context, target streamTarget, callSid string) (*mediaStream, error) {
	dialer := ws.Dialer{Timeout: 5 * time.Second}
	conn, _, _, err := dialer.Dial(ctx, target.URL)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	s := &mediaStream{conn: conn, streamSid: "MZ" + hex.EncodeToString(raw), callSid: callSid, started: time.Now()}
	parameters := target.Parameters
	if parameters == nil {
		parameters = map[string]string{}
	}
	if err := s.send(map[string]any{"event": "connected", "protocol": "Call", "version": "1.0.0"}); err != nil {
		_ = conn.Close()
		return nil, err
	}
	err = s.sendSequenced("start", map[string]any{
		"start": map[string]any{
			"streamSid": s.streamSid, "accountSid": accountSid, "callSid": callSid, "tracks": []string{"inbound"},
			"customParameters": parameters,
			"mediaFormat":      map[string]any{"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
		},
	})
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *mediaStream) send(message any) error {
	payload, err := json.Marshal(message)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return wsutil.WriteClientText(s.conn, payload)
}

// sendSequenced adds the fields every message but `connected` carries: its place in the stream and the stream.
func (s *mediaStream) sendSequenced(event string, fields map[string]any) error {
	s.writeMu.Lock()
	s.sequence++
	sequence := s.sequence
	s.writeMu.Unlock()
	fields["event"] = event
	fields["sequenceNumber"] = strconv.Itoa(sequence)
	fields["streamSid"] = s.streamSid
	return s.send(fields)
}

// audio sends one frame of the caller's μ-law audio.
func (s *mediaStream) audio(frame []byte) error {
	s.chunk++
	return s.sendSequenced("media", map[string]any{"media": map[string]string{
		"track": "inbound", "chunk": strconv.Itoa(s.chunk), "timestamp": strconv.FormatInt(time.Since(s.started).Milliseconds(), 10),
		"payload": base64.StdEncoding.EncodeToString(frame),
	}})
}

// key reports a key the caller pressed, as Twilio reports one it detected.
func (s *mediaStream) key(digit rune) error {
	return s.sendSequenced("dtmf", map[string]any{"dtmf": map[string]string{"track": "inbound_track", "digit": string(digit)}})
}

// played echoes a mark of Parley's: the audio before it has been sent to the caller.
func (s *mediaStream) played(name string) error {
	return s.sendSequenced("mark", map[string]any{"mark": map[string]string{"name": name}})
}

// stop tells Parley the call is over, then closes the socket.
func (s *mediaStream) stop() {
	_ = s.sendSequenced("stop", map[string]any{"stop": map[string]string{"accountSid": accountSid, "callSid": s.callSid}})
	s.writeMu.Lock()
	_ = wsutil.WriteClientMessage(s.conn, ws.OpClose, ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))
	s.writeMu.Unlock()
	_ = s.conn.Close()
}

// read returns Parley's next message; an error means the stream is over (Parley closed it, or it broke).
func (s *mediaStream) read() (parleyMessage, error) {
	for {
		data, op, err := wsutil.ReadServerData(s.conn)
		if err != nil {
			return parleyMessage{}, err
		}
		if op != ws.OpText {
			continue
		}
		var message parleyMessage
		if json.Unmarshal(data, &message) == nil {
			return message, nil
		}
	}
}
