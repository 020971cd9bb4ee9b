package main

import (
	"testing"
	"time"
)

func TestGuardDropsAFloodFromOneSourceAndNotOthers(t *testing.T) {
	now := time.Unix(1000, 0)
	g := newGuard(10, 1000)
	g.now = func() time.Time { return now }
	allowed := 0
	for i := 0; i < 1000; i++ {
		if g.allow("198.51.100.7") {
			allowed++
		}
	}
	// The burst (three seconds' worth), then nothing until the bucket refills.
	if allowed != 30 {
		t.Fatalf("a flood got %d packets through, want 30", allowed)
	}
	if !g.allow("198.51.100.8") {
		t.Fatal("another source was dropped")
	}
	now = now.Add(time.Second)
	if !g.allow("198.51.100.7") {
		t.Fatal("the source stayed dropped after its bucket refilled")
	}
}

func TestGuardBlocksASourceWhoseInvitesKeepBeingRefusedUnlessTrusted(t *testing.T) {
	now := time.Unix(1000, 0)
	g := newGuard(10, 1000)
	g.now = func() time.Time { return now }
	for i := 0; i < refusalLimit; i++ {
		g.allow("203.0.113.5")
		g.refused("203.0.113.5")
	}
	if g.allow("203.0.113.5") {
		t.Fatal("a scanner was heard after its refusals")
	}
	now = now.Add(blockFor + time.Second)
	if !g.allow("203.0.113.5") {
		t.Fatal("the block did not end")
	}
	g.trust("192.0.2.1", time.Hour)
	for i := 0; i < 3*refusalLimit; i++ {
		g.refused("192.0.2.1")
	}
	for i := 0; i < 500; i++ {
		if !g.allow("192.0.2.1") {
			t.Fatalf("a trusted trunk was dropped after %d packets", i)
		}
	}
}
