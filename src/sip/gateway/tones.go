package main

import (
	"math"

	"github.com/zaf/g711"
)

// toneDetector finds the keypad tones Parley plays (its `dtmf_input` tool makes Q.23 row and column pairs in
// the audio) so the gateway can send them to a SIP far end as RFC 4733 telephone events instead, which trunks
// read reliably where in-band tones through a compressed network are not. A frame is a digit when its energy
// sits almost entirely in one row and one column frequency; two frames in a row confirm it.
type toneDetector struct {
	candidate rune
	sent      rune
}

var (
	rowHz    = [4]float64{697, 770, 852, 941}
	columnHz = [4]float64{1209, 1336, 1477, 1633}
	keypad   = [4][4]rune{{'1', '2', '3', 'A'}, {'4', '5', '6', 'B'}, {'7', '8', '9', 'C'}, {'*', '0', '#', 'D'}}
)

const (
	// Mean absolute sample (of 32767) below which a frame is too quiet to be a tone: about -40 dBFS.
	quietLevel = 300
	// The share of a frame's energy the row and column tones must hold together, and each at least.
	toneShare   = 0.7
	singleShare = 0.15
)

// Goertzel's power at `hz`, normalized so that a pure sine at that frequency over the frame gives its energy.
func goertzel(samples []float64, hz float64) float64 {
	coefficient := 2 * math.Cos(2*math.Pi*hz/8000)
	var s1, s2 float64
	for _, x := range samples {
		s0 := x + coefficient*s1 - s2
		s2, s1 = s1, s0
	}
	power := s1*s1 + s2*s2 - coefficient*s1*s2
	return 2 * power / float64(len(samples))
}

// classify returns the digit a μ-law frame holds, 0 for none, and whether the frame is quiet.
func classify(frame []byte) (rune, bool) {
	samples := make([]float64, len(frame))
	var energy, level float64
	for i, code := range frame {
		x := float64(g711.DecodeUlawFrame(code))
		samples[i] = x
		energy += x * x
		level += math.Abs(x)
	}
	if level/float64(len(frame)) < quietLevel {
		return 0, true
	}
	best := func(freqs [4]float64) (int, float64) {
		index, top := 0, -1.0
		for i, hz := range freqs {
			if p := goertzel(samples, hz); p > top {
				index, top = i, p
			}
		}
		return index, top
	}
	row, rowPower := best(rowHz)
	column, columnPower := best(columnHz)
	if rowPower < singleShare*energy || columnPower < singleShare*energy || rowPower+columnPower < toneShare*energy {
		return 0, false
	}
	return keypad[row][column], false
}

// feed looks at the next frame Parley plays: `digit` is a tone just confirmed (to send as an event), `tone`
// whether the frame is part of a keypad tone (not to be played as audio).
func (d *toneDetector) feed(frame []byte) (digit rune, tone bool) {
	found, _ := classify(frame)
	switch {
	case found == 0:
		d.candidate, d.sent = 0, 0
		return 0, false
	case found == d.sent:
		return 0, true
	case found == d.candidate:
		d.sent, d.candidate = found, 0
		return found, true
	default:
		d.candidate = found
		return 0, true
	}
}
