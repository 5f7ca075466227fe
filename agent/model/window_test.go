package model

import (
	"fmt"
	"math"
	"testing"
)

// TestTheWindowStaysWithinItsBounds gives the window what a hostile or
// broken server may claim the model takes, and what a user may ask, and
// grows it as often as prompts would have it: num_ctx is never above the
// clamp, never below one, and never above a window asked for.
func TestTheWindowStaysWithinItsBounds(t *testing.T) {
	claims := []float64{0, -1, math.NaN(), math.Inf(1), 1, 100, 2048, 131072, 1e12, 9.2e18, 1.8e19, 1e300}
	asks := []int{0, -3, 1, 1024, 32768, 1 << 40, math.MaxInt}
	prompts := []int{0, 1, 5000, 1 << 20, 1 << 40, math.MaxInt / 2}
	for _, claim := range claims {
		for _, numCtx := range asks {
			w := newWindow(numCtx, claim)
			check := func(when string) {
				t.Helper()
				if n := w.now(); n < 1 || n > maxWindow || numCtx > 0 && n > numCtx || n > w.ceiling {
					t.Fatalf("claim %g, num_ctx %d, %s: the window is %d (ceiling %d)", claim, numCtx, when, n, w.ceiling)
				}
			}
			check("at first")
			for _, p := range prompts {
				for _, used := range []int{0, w.now(), 1, math.MaxInt} {
					w.fit(tokens{p / 2, p, p}, 4096, used)
					check(fmt.Sprintf("after a prompt of %d, a call with %d", p, used))
				}
			}
		}
	}
}
