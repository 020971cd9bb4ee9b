package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/emiago/diago"
)

func TestWarmOutcome(t *testing.T) {
	ringing := &secondLeg{ready: make(chan struct{})}
	if got := ringing.warmOutcome("SIP1", errFarEndLeft); got["status"] != "canceled" || got["error"] != callerGone {
		t.Errorf("a supervisor the caller left while they rang: %v", got)
	}

	away := &secondLeg{ready: make(chan struct{}), status: "no-answer"}
	close(away.ready)
	if got := away.warmOutcome("SIP1", errLegLeft); got["status"] != "no-answer" || got["duration"] != nil {
		t.Errorf("a supervisor who did not answer: %v", got)
	}

	answered := time.Now().Add(-7 * time.Second)
	briefed := &secondLeg{ready: make(chan struct{}), med: &diago.DialogMedia{}, answered: answered}
	close(briefed.ready)
	if got := briefed.warmOutcome("SIP1", errLegLeft); got["status"] != "failed" || got["error"] != supervisorLeft || got["duration"] != 7 {
		t.Errorf("a supervisor who hung up during the briefing: %v", got)
	}
	if got := briefed.warmOutcome("SIP1", errFarEndLeft); got["status"] != "canceled" || got["error"] != callerGone {
		t.Errorf("a caller who hung up during the briefing: %v", got)
	}

	briefed.joined, briefed.finished = answered.Add(5*time.Second), answered.Add(30*time.Second)
	if got := briefed.warmOutcome("SIP1", errFarEndLeft); got["status"] != "completed" || got["duration"] != 30 || got["error"] != nil {
		t.Errorf("a supervisor who talked with the caller, briefing included: %v", got)
	}
}

func TestHoldLoopPlaysRoundAFewFramesAhead(t *testing.T) {
	music := make([]byte, 3*frameBytes)
	for i := range music {
		music[i] = byte(i / frameBytes)
	}
	loop := &holdLoop{audio: music}
	out := newPlayout(100)
	loop.topUp(out)
	if out.pending() != holdAhead {
		t.Fatalf("%d frames wait, want %d", out.pending(), holdAhead)
	}
	for i := 0; i < 5; i++ {
		frame, _ := out.next()
		if frame[0] != byte(i%3) {
			t.Fatalf("frame %d is part %d of the loop, want %d", i, frame[0], i%3)
		}
		loop.topUp(out)
	}
	silent := &holdLoop{}
	empty := newPlayout(100)
	silent.topUp(empty)
	if empty.pending() != 0 {
		t.Errorf("no music queued %d frames", empty.pending())
	}
}

func TestReadingWaitsForItsClipThenPadsTheLastFrame(t *testing.T) {
	pending := &clip{done: make(chan struct{})}
	r := newReading(pending)
	if frame, over := r.next(); frame != nil || over {
		t.Fatalf("a clip being synthesized gave %v, over %v", frame, over)
	}
	pending.audio = bytes.Repeat([]byte{1}, frameBytes+10)
	close(pending.done)
	if frame, over := r.next(); over || !bytes.Equal(frame, pending.audio[:frameBytes]) {
		t.Fatalf("the first frame: %v, over %v", frame, over)
	}
	frame, over := r.next()
	if over || len(frame) != frameBytes || frame[9] != 1 || frame[10] != ulawSilence {
		t.Fatalf("the last frame, padded with silence: %v, over %v", frame, over)
	}
	if _, over := r.next(); !over {
		t.Error("a clip played to its end is not over")
	}

	late := &reading{clip: &clip{done: make(chan struct{})}, deadline: time.Now().Add(-time.Second)}
	if frame, over := late.next(); frame != nil || !over {
		t.Error("a clip not synthesized in time is not skipped")
	}
}
