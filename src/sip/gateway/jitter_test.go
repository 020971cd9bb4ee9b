package main

import (
	"bytes"
	"testing"
)

func frameOf(b byte) []byte { return []byte{b} }

func takeAll(j *jitterBuffer, ticks int) []byte {
	var out []byte
	for i := 0; i < ticks; i++ {
		if frame := j.take(); frame != nil {
			out = append(out, frame[0])
		} else {
			out = append(out, '.')
		}
	}
	return out
}

func TestJitterBufferReordersAndWaitsForItsDepth(t *testing.T) {
	j := newJitterBuffer(2, 10)
	j.put(100, frameOf('a'))
	if got := takeAll(j, 1); !bytes.Equal(got, []byte(".")) {
		t.Fatalf("played before two frames waited: %q", got)
	}
	j.put(102, frameOf('c'))
	j.put(101, frameOf('b'))
	if got := takeAll(j, 3); !bytes.Equal(got, []byte("abc")) {
		t.Fatalf("got %q", got)
	}
}

func TestJitterBufferPlaysSilenceForALostFrameAndDropsLateOnes(t *testing.T) {
	j := newJitterBuffer(2, 10)
	for _, seq := range []uint16{1, 2, 4, 5} {
		j.put(seq, frameOf(byte('a'+seq)))
	}
	if got := takeAll(j, 2); !bytes.Equal(got, []byte("bc")) {
		t.Fatalf("got %q", got)
	}
	if got := takeAll(j, 1); !bytes.Equal(got, []byte(".")) {
		t.Fatalf("a lost frame is not silence: %q", got)
	}
	j.put(3, frameOf('d'))
	if got := takeAll(j, 3); !bytes.Equal(got, []byte("ef.")) {
		t.Fatalf("got %q", got)
	}
}

func TestJitterBufferBuffersAgainAfterRunningDryAndFollowsASequenceJump(t *testing.T) {
	j := newJitterBuffer(2, 10)
	j.put(65535, frameOf('x'))
	j.put(0, frameOf('y'))
	if got := takeAll(j, 3); !bytes.Equal(got, []byte("xy.")) {
		t.Fatalf("wrapping sequence: %q", got)
	}
	j.put(1, frameOf('z'))
	if got := takeAll(j, 1); !bytes.Equal(got, []byte(".")) {
		t.Fatalf("played one frame after running dry: %q", got)
	}
	j.put(5000, frameOf('p'))
	j.put(5001, frameOf('q'))
	if got := takeAll(j, 2); !bytes.Equal(got, []byte("pq")) {
		t.Fatalf("a new stream: %q", got)
	}
}
