package main

import "sync"

// frameBytes is one 20 ms frame of G.711 at 8 kHz: what Parley sends in each `media` message and what one RTP
// packet carries.
const frameBytes = 160

// The G.711 code of silence: μ-law's and A-law's positive zero.
const (
	ulawSilence byte = 0xFF
	alawSilence byte = 0xD5
)

// playout is the far end's ear: Parley's audio (μ-law frames, paced by Parley a little ahead of real time) and
// its marks, in order, taken one frame per 20 ms by the RTP writer. A mark is echoed once the frames before it
// have been sent; `clear` drops what waits and echoes every mark in it, as Twilio does.
type playout struct {
	mu        sync.Mutex
	items     []playItem
	frames    int
	maxFrames int
}

type playItem struct {
	frame []byte
	mark  string
}

func newPlayout(maxFrames int) *playout {
	return &playout{maxFrames: maxFrames}
}

// push queues a payload as whole frames, the last padded with silence; past the cap the rest is dropped.
func (p *playout) push(payload []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for offset := 0; offset < len(payload) && p.frames < p.maxFrames; offset += frameBytes {
		frame := make([]byte, frameBytes)
		n := copy(frame, payload[offset:min(offset+frameBytes, len(payload))])
		for i := n; i < frameBytes; i++ {
			frame[i] = ulawSilence
		}
		p.items = append(p.items, playItem{frame: frame})
		p.frames++
	}
}

func (p *playout) mark(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, playItem{mark: name})
}

// clear drops every frame waiting and returns the marks that were waiting with them.
func (p *playout) clear() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var marks []string
	for _, item := range p.items {
		if item.frame == nil {
			marks = append(marks, item.mark)
		}
	}
	p.items, p.frames = nil, 0
	return marks
}

// next takes the next frame (nil when none waits) and the marks that stood before it.
func (p *playout) next() ([]byte, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	marks := p.headMarksLocked()
	if len(p.items) == 0 {
		return nil, marks
	}
	frame := p.items[0].frame
	p.items = p.items[1:]
	p.frames--
	return frame, marks
}

// peek returns the next frame without taking it (nil when a mark or nothing is next).
func (p *playout) peek() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.items) == 0 {
		return nil
	}
	return p.items[0].frame
}

// played returns the marks now at the head: everything before them has been sent.
func (p *playout) played() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.headMarksLocked()
}

func (p *playout) headMarksLocked() []string {
	var marks []string
	for len(p.items) > 0 && p.items[0].frame == nil {
		marks = append(marks, p.items[0].mark)
		p.items = p.items[1:]
	}
	return marks
}

// pending is how many frames wait to be played.
func (p *playout) pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}
