package main

import "sync"

// jitterBuffer puts the caller's RTP frames back in order and releases one per 20 ms tick: playout starts once
// `depth` frames wait (40 ms: what the network's jitter may shift a packet by), a frame that arrives after its
// turn is dropped, a missing frame is a tick of silence, and a stream that runs dry (the far end paused)
// buffers again before playing on. A jump beyond `window` frames (a new stream, a long gap) starts over there.
type jitterBuffer struct {
	mu      sync.Mutex
	frames  map[uint16][]byte
	next    uint16
	started bool
	playing bool
	depth   int
	window  int
}

func newJitterBuffer(depth, window int) *jitterBuffer {
	return &jitterBuffer{frames: map[uint16][]byte{}, depth: depth, window: window}
}

// put files a frame by its RTP sequence number.
func (j *jitterBuffer) put(seq uint16, frame []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started {
		j.started, j.next = true, seq
	}
	ahead := int16(seq - j.next)
	switch {
	case ahead < 0:
		return
	case int(ahead) >= j.window:
		j.frames = map[uint16][]byte{}
		j.next, j.playing = seq, false
	}
	j.frames[seq] = frame
}

// take returns the frame due now, or nil for a tick of silence (still buffering, a lost packet, nothing left).
func (j *jitterBuffer) take() []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.playing {
		if len(j.frames) < j.depth {
			return nil
		}
		j.playing = true
	}
	if frame, ok := j.frames[j.next]; ok {
		delete(j.frames, j.next)
		j.next++
		return frame
	}
	if len(j.frames) == 0 {
		j.playing = false
		return nil
	}
	j.next++
	return nil
}
