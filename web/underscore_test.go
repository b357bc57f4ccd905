package web

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"
)

// At 1× the cells are tall enough for an underscore: spurious-wakeup's
// note names the rebuild_begin event on a row with a row under it, and
// the pixels of the "_" of its name are lit in a screenshot, not painted
// over by the row below.
func TestBrowserUnderscoreAt1x(t *testing.T) {
	exe := needChromium(t)
	site := browserSite(t)
	b := openPage(t, exe, serve(t, site)+"/#spurious-wakeup@1.5s")
	b.waitScreen("spurious-wakeup's note", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "rebuild_begin")
	})
	// Where the underscore is: the box the browser gives its character.
	var box struct{ X, Y, W, H float64 }
	b.eval(`(() => {
		// tcell's web screen draws a text node or a span per cell.
		const w = document.createTreeWalker(document.getElementById("terminal"), NodeFilter.SHOW_TEXT);
		const nodes = [];
		let text = "";
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			nodes.push([n, text.length]);
			text += n.data;
		}
		const at = text.indexOf("rebuild_begin") + 7;
		if (at < 7) return {X: 0, Y: 0, W: 0, H: 0};
		for (let k = nodes.length - 1; k >= 0; k--) {
			const [n, off] = nodes[k];
			if (off > at) continue;
			const r = document.createRange();
			r.setStart(n, at - off);
			r.setEnd(n, at - off + 1);
			const b = r.getBoundingClientRect();
			return {X: b.left, Y: b.top, W: b.width, H: b.height};
		}
		return {X: 0, Y: 0, W: 0, H: 0};
	})()`, &box)
	if box.W == 0 {
		t.Fatal("no rebuild_begin on the page")
	}
	shot := b.shot("web-underscore.png")
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// The lower part of the "_" glyph's box holds its stroke: a run of
	// bright pixels across the cell.
	lit := 0
	rect := image.Rect(int(box.X+1), int(box.Y+box.H*0.6), int(box.X+box.W-1), int(box.Y+box.H+1))
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		n := 0
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r+g+bl)/3 > 0x6000 {
				n++
			}
		}
		lit = max(lit, n)
	}
	if lit < rect.Dx()/2 {
		t.Errorf("no underscore in the cell at %v of %s (at most %d of %d pixels lit in a row)", rect, shot, lit, rect.Dx())
	}
}
