package main

import (
	"reflect"
	"testing"
)

func TestPlayoutEchoesMarksAfterTheirAudioAndOnClear(t *testing.T) {
	p := newPlayout(100)
	p.push(make([]byte, 2*frameBytes))
	p.mark("one")
	p.push(make([]byte, frameBytes/2))
	p.mark("two")
	if frame, marks := p.next(); frame == nil || marks != nil {
		t.Fatal("the first frame")
	}
	if _, marks := p.next(); marks != nil {
		t.Fatal("a mark before its audio had played")
	}
	if marks := p.played(); !reflect.DeepEqual(marks, []string{"one"}) {
		t.Fatalf("played %v", marks)
	}
	frame, _ := p.next()
	if len(frame) != frameBytes || frame[frameBytes-1] != ulawSilence {
		t.Fatal("a short payload is not padded with silence to a whole frame")
	}
	p.push(make([]byte, 3*frameBytes))
	p.mark("three")
	if marks := p.clear(); !reflect.DeepEqual(marks, []string{"two", "three"}) {
		t.Fatalf("clear returned %v", marks)
	}
	if frame, marks := p.next(); frame != nil || marks != nil {
		t.Fatal("something was left after clear")
	}
}
