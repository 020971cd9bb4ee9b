package main

import (
	"math"
	"testing"

	"github.com/zaf/g711"
)

// keyTones makes μ-law frames of keys as Parley's dtmf_input plays them (src/voice/audio/dtmf.ts): 100 ms of
// the row and column tones at about -6 dBFS with 5 ms ramps, then 100 ms of silence, `offset` samples late.
func keyTones(keys string, offset int) [][]byte {
	pcm := make([]int16, offset)
	for _, key := range keys {
		var low, high float64
		for r, row := range keypad {
			for c, k := range row {
				if k == key {
					low, high = rowHz[r], columnHz[c]
				}
			}
		}
		for i := 0; i < 800; i++ {
			ramp := math.Min(1, math.Min(float64(i)/40, float64(799-i)/40))
			t := float64(i) / 8000
			pcm = append(pcm, int16(ramp*0.25*32767*(math.Sin(2*math.Pi*low*t)+math.Sin(2*math.Pi*high*t))))
		}
		pcm = append(pcm, make([]int16, 800)...)
	}
	var frames [][]byte
	for start := 0; start+frameBytes <= len(pcm); start += frameBytes {
		frame := make([]byte, frameBytes)
		for i := range frame {
			frame[i] = g711.EncodeUlawFrame(pcm[start+i])
		}
		frames = append(frames, frame)
	}
	return frames
}

func TestToneDetectorFindsEachKeyOnce(t *testing.T) {
	for offset := 0; offset < frameBytes; offset += 40 {
		var detector toneDetector
		found := ""
		for _, frame := range keyTones("7#19", offset) {
			if digit, _ := detector.feed(frame); digit != 0 {
				found += string(digit)
			}
		}
		if found != "7#19" {
			t.Fatalf("offset %d: found %q", offset, found)
		}
	}
}
