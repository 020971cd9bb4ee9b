package main

import (
	"context"
	"time"
)

// How long Parley may take to synthesize a clip; a held caller never waits longer for one.
const speakTimeout = 15 * time.Second

// clip is speech the gateway plays once Parley has left a call (a warm transfer's briefing, the apology when
// nobody takes a transfer): the text is synthesized by Parley with its own text-to-speech (the sip role's
// `speak`, src/sip/line-audio.ts) as μ-law at 8 kHz, asked for as soon as the transfer starts so that it is
// ready by the time it is played. `audio` is set before `done` closes; empty when it could not be had.
type clip struct {
	done  chan struct{}
	audio []byte
}

// readyClip is a clip there is nothing to wait for.
func readyClip(audio []byte) *clip {
	c := &clip{done: make(chan struct{}), audio: audio}
	close(c.done)
	return c
}

// speak asks Parley to synthesize `text`; the clip is ready once it has answered (or failed, or `ctx` ended).
func (g *gateway) speak(ctx context.Context, text string) *clip {
	if text == "" {
		return readyClip(nil)
	}
	c := &clip{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		askCtx, cancel := context.WithTimeout(ctx, speakTimeout)
		defer cancel()
		var answer struct {
			// base64 in the JSON, as encoding/json reads a []byte.
			Audio []byte `json:"audio"`
		}
		if err := g.ctl.ask(askCtx, "speak", map[string]string{"text": text}, &answer); err != nil {
			g.log.Warn("Parley could not synthesize what a caller on a transfer was to hear", "error", err)
			return
		}
		c.audio = answer.Audio
	}()
	return c
}

// wait returns the clip's audio once it is ready, or nil when it is not ready within `limit` or ctx ends.
func (c *clip) wait(ctx context.Context, limit time.Duration) []byte {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.audio
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil
}
