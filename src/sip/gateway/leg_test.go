package main

import (
	"testing"
	"time"

	"github.com/emiago/diago"
)

func TestLegOutcome(t *testing.T) {
	ringing := &secondLeg{ready: make(chan struct{})}
	if got := ringing.outcome("SIP1")["status"]; got != "canceled" {
		t.Errorf("a leg the caller left while it rang: %v, want canceled", got)
	}

	busy := &secondLeg{ready: make(chan struct{}), status: "busy", code: 486}
	close(busy.ready)
	if got := busy.outcome("SIP1"); got["status"] != "busy" || got["code"] != 486 {
		t.Errorf("a busy leg: %v", got)
	}

	talked := &secondLeg{ready: make(chan struct{}), med: &diago.DialogMedia{}}
	close(talked.ready)
	if got := talked.outcome("SIP1"); got["status"] != "completed" || got["duration"] != 0 {
		t.Errorf("an answered leg never joined: %v", got)
	}
	talked.joined = time.Now().Add(-12 * time.Second)
	talked.finished = time.Now()
	if got := talked.outcome("SIP1"); got["status"] != "completed" || got["duration"] != 12 {
		t.Errorf("a leg joined for 12 s: %v", got)
	}
}
