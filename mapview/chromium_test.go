package mapview

import (
	"bytes"
	"context"
	"image/png"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// chromiumFlags keep headless Chromium off the network and out of the
// user's profile.
func chromiumFlags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--window-size=1200,800",
	}
}

// TestChromiumDrawsMap loads /map in headless Chromium, as an operator's
// browser would: the screenshot must show a picture, and the DOM must
// hold one area per shard of the map. The screenshot is kept in the
// directory named by MAPVIEW_SCREENSHOT_DIR when set.
func TestChromiumDrawsMap(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (%v): install the Debian package chromium; .ci/run installs it", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(Handler(busyRouter(t)))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	url := srv.URL + "/map"

	dir := t.TempDir()
	shot := filepath.Join(dir, "map.png")
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Second)
	defer cancel()
	run := func(extra ...string) []byte {
		args := append(chromiumFlags(filepath.Join(dir, "profile")), extra...)
		cmd := exec.CommandContext(ctx, bin, append(args, url)...)
		cmd.WaitDelay = 2 * time.Second
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
		}
		return out
	}

	run("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	colours := map[uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>11)<<10|(g>>11)<<5|bl>>11]++
		}
	}
	// A blank page has one or two colours; the map has shades, borders,
	// text and the header.
	if len(colours) < 8 {
		t.Errorf("screenshot %dx%d looks blank: %d colours", b.Dx(), b.Dy(), len(colours))
	}
	if keep := os.Getenv("MAPVIEW_SCREENSHOT_DIR"); keep != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(filepath.Join(keep, "mapview.png"), data, 0o644); err != nil {
			t.Error(err)
		}
	}

	dom := run("--dump-dom", "--virtual-time-budget=2000")
	drawn := map[string]int{}
	for _, m := range regexp.MustCompile(`<path [^>]*data-shard="([^"]*)"`).FindAllSubmatch(dom, -1) {
		drawn[string(m[1])]++
	}
	want := []string{"cell-0-0", "cell-1-0", "cell-2-0", "cell-0-1", "cell-1-1", "cell-2-1"}
	for _, name := range want {
		if drawn[name] != 1 {
			t.Errorf("shard %s drawn %d times", name, drawn[name])
		}
	}
	if len(drawn) != len(want) {
		t.Errorf("drew %d shards (%v), the map has %d with areas", len(drawn), drawn, len(want))
	}
	if !regexp.MustCompile(`data-border="cell-0-0\|cell-1-0"`).Match(dom) {
		t.Error("the border with traffic is not drawn")
	}
}
