package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// The gateway talks to its parent, Parley's sip role, over its standard input and output: one JSON message
// per line. A message with `id` and `type` is a request, answered by a message with `re` (the request's id)
// and either `body` or `error`; a message with `type` alone is a notice, never answered. Both sides ask: the
// gateway asks Parley which trunks own a number and whether a call is admitted, and tells it each call's
// status; Parley asks the gateway to dial, hang up and transfer. Audio never passes here.
type envelope struct {
	ID    int64           `json:"id,omitempty"`
	Re    int64           `json:"re,omitempty"`
	Type  string          `json:"type,omitempty"`
	Body  json.RawMessage `json:"body,omitempty"`
	Error string          `json:"error,omitempty"`
}

type handler func(ctx context.Context, body json.RawMessage) (any, error)

type control struct {
	log      *slog.Logger
	out      io.Writer
	writeMu  sync.Mutex
	nextID   atomic.Int64
	mu       sync.Mutex
	pending  map[int64]chan envelope
	handlers map[string]handler
	closed   chan struct{}
}

// errControlClosed: Parley has gone (its end of the pipe closed); nothing more can be asked.
var errControlClosed = errors.New("the control channel to Parley is closed")

func newControl(out io.Writer, log *slog.Logger) *control {
	return &control{log: log, out: out, pending: map[int64]chan envelope{}, handlers: map[string]handler{}, closed: make(chan struct{})}
}

// handle registers what a request of `kind` from Parley does; its result is the answer's body.
func (c *control) handle(kind string, h handler) {
	c.handlers[kind] = h
}

func (c *control) write(message envelope) error {
	line, err := json.Marshal(message)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(line, '\n'))
	return err
}

// tell sends a notice; a failure to write means Parley is gone, which the reader notices.
func (c *control) tell(kind string, body any) {
	raw, err := json.Marshal(body)
	if err == nil {
		err = c.write(envelope{Type: kind, Body: raw})
	}
	if err != nil {
		c.log.Warn("could not tell Parley", "type", kind, "error", err)
	}
}

// ask sends a request and waits for its answer, decoding the answer's body into `result` (when not nil).
func (c *control) ask(ctx context.Context, kind string, body any, result any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	id := c.nextID.Add(1)
	answer := make(chan envelope, 1)
	c.mu.Lock()
	c.pending[id] = answer
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.write(envelope{ID: id, Type: kind, Body: raw}); err != nil {
		return err
	}
	select {
	case reply := <-answer:
		if reply.Error != "" {
			return fmt.Errorf("parley answered %s with an error: %s", kind, reply.Error)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(reply.Body, result)
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return errControlClosed
	}
}

// serve reads Parley's messages until its end of the pipe closes; each request runs on a goroutine of its own.
func (c *control) serve(ctx context.Context, in io.Reader) error {
	defer close(c.closed)
	scanner := bufio.NewScanner(in)
	// A line may carry audio: a warm transfer's hold music, a synthesized clip (at most 3 minutes: 1.9 MB).
	scanner.Buffer(make([]byte, 64*1024), 8*1024*1024)
	for scanner.Scan() {
		var message envelope
		if err := json.Unmarshal(scanner.Bytes(), &message); err != nil {
			c.log.Warn("a control message that is not JSON", "error", err)
			continue
		}
		if message.Re != 0 {
			c.mu.Lock()
			answer := c.pending[message.Re]
			c.mu.Unlock()
			if answer != nil {
				answer <- message
			}
			continue
		}
		go c.answer(ctx, message)
	}
	return scanner.Err()
}

func (c *control) answer(ctx context.Context, message envelope) {
	h := c.handlers[message.Type]
	if h == nil {
		if message.ID != 0 {
			_ = c.write(envelope{Re: message.ID, Error: "unknown request " + message.Type})
		}
		return
	}
	result, err := h(ctx, message.Body)
	if message.ID == 0 {
		return
	}
	if err != nil {
		_ = c.write(envelope{Re: message.ID, Error: err.Error()})
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		_ = c.write(envelope{Re: message.ID, Error: err.Error()})
		return
	}
	_ = c.write(envelope{Re: message.ID, Body: raw})
}
