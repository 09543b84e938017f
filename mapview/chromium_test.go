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
	"strconv"
	"strings"
	"testing"
	"time"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
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

// browser serves the map of r offline (tiles "none") on loopback and
// loads pages of it in headless Chromium.
type browser struct {
	t   *testing.T
	bin string
	url string
	dir string
}

func newBrowser(t *testing.T, r *router.Router) *browser {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (%v): install the Debian package chromium; .ci/run installs it", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(Live(func() *router.Router { return r }, Options{Tiles: "none"}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return &browser{t: t, bin: bin, url: srv.URL, dir: t.TempDir()}
}

func (b *browser) run(page string, extra ...string) []byte {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	args := append(chromiumFlags(filepath.Join(b.dir, "profile")), extra...)
	cmd := exec.CommandContext(ctx, b.bin, append(args, b.url+page)...)
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return out
}

// dom loads the page and returns the DOM once its scripts, the Natural
// Earth layer and the density cells are in.
func (b *browser) dom(page string) string {
	return string(b.run(page, "--dump-dom", "--virtual-time-budget=5000"))
}

// attrs returns, for every element of the kind elem (a tag name or "[a-z]+")
// carrying attribute name, its value and the value of attribute other.
func attrs(dom, elem, name, other string) map[string]string {
	out := map[string]string{}
	for _, tag := range regexp.MustCompile(`<`+elem+` [^>]*`+name+`="[^"]*"[^>]*>`).FindAllString(dom, -1) {
		k := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
		v := regexp.MustCompile(` ` + other + `="([^"]*)"`).FindStringSubmatch(tag)
		if k != nil {
			out[k[1]] = ""
			if v != nil {
				out[k[1]] = v[1]
			}
		}
	}
	return out
}

// TestChromiumDrawsMap loads /map in headless Chromium as an operator's
// browser would, offline, and checks what it drew: one area and one label
// per shard, every border with its value, the legend's values, the
// density cells adding up to the members, Natural Earth countries, the
// hover figures of the border named in the URL, and the mode in the URL.
func TestChromiumDrawsMap(t *testing.T) {
	r := busyRouter(t)
	b := newBrowser(t, r)
	// The page's density covers its view: the grid, not the catch-all's
	// drivers far away.
	var members int64
	for id, n := range r.ShardMembers() {
		if shard.ID(id) != r.Regions().CatchAll() {
			members += n
		}
	}
	cases := []struct {
		hash, mode string
		want       string // the busy border's value; every other border is 0
		tip        string
	}{
		{"#span=total&border=cell-0-0%7Ccell-1-0", "fanout", "1", "searches that asked both: 1 total"},
		{"#mode=handoffs&span=total&view=52.35,4.9,10", "handoffs", "1", ""},
	}
	shards := []string{"cell-0-0", "cell-1-0", "cell-2-0", "cell-0-1", "cell-1-1", "cell-2-1"}
	for _, c := range cases {
		dom := b.dom("/map" + c.hash)
		drawn := attrs(dom, "path", "data-shard", "d")
		labels := attrs(dom, "span", "data-label", "data-lonlat")
		for _, name := range shards {
			if _, ok := drawn[name]; !ok {
				t.Errorf("%s: shard %s not drawn", c.hash, name)
			}
			if _, ok := labels[name]; !ok {
				t.Errorf("%s: shard %s not labelled", c.hash, name)
			}
		}
		borders := attrs(dom, "path", "data-border", "data-value")
		for _, name := range []string{"cell-0-0|cell-1-0", "cell-1-0|cell-2-0", "cell-0-0|cell-0-1"} {
			want := "0"
			if name == "cell-0-0|cell-1-0" {
				want = c.want
			}
			if got, ok := borders[name]; !ok || got != want {
				t.Errorf("%s: border %s drawn %v with value %q, want %q", c.hash, name, ok, got, want)
			}
		}
		ticks := regexp.MustCompile(`id="legend-borders".*?</div></div>`).FindString(dom)
		if !strings.Contains(ticks, `data-v="`+c.want+`"`) {
			t.Errorf("%s: border legend lacks the value %s: %s", c.hash, c.want, ticks)
		}
		var sum int64
		cells := attrs(dom, "path", "data-n", "data-n")
		for _, m := range regexp.MustCompile(`data-n="(\d+)"`).FindAllStringSubmatch(dom, -1) {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			sum += n
		}
		if len(cells) == 0 || sum != members {
			t.Errorf("%s: density cells hold %d members (%d distinct counts), the shards %d", c.hash, sum, len(cells), members)
		}
		if m := regexp.MustCompile(`data-natural-earth="(\d+)"`).FindStringSubmatch(dom); m == nil || len(m[1]) < 3 {
			t.Errorf("%s: Natural Earth countries not drawn: %v", c.hash, m)
		}
		if !strings.Contains(dom, `data-mode="`+c.mode+`"`) {
			t.Errorf("%s: mode %s not taken from the URL", c.hash, c.mode)
		}
		if c.tip != "" && !strings.Contains(dom, c.tip) {
			t.Errorf("%s: hover figures %q not shown", c.hash, c.tip)
		}
		if strings.Contains(c.hash, "view=") && !strings.Contains(dom, `data-view="52.35000,4.90000,10"`) {
			t.Errorf("%s: view not taken from the URL", c.hash)
		}
	}

	shot := filepath.Join(b.dir, "map.png")
	b.run("/map#span=total", "--screenshot="+shot, "--virtual-time-budget=5000")
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
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>11)<<10|(g>>11)<<5|bl>>11]++
		}
	}
	if len(colours) < 8 {
		t.Errorf("screenshot %dx%d looks blank: %d colours", bd.Dx(), bd.Dy(), len(colours))
	}
	if keep := os.Getenv("MAPVIEW_SCREENSHOT_DIR"); keep != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(filepath.Join(keep, "mapview.png"), data, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// TestChromiumRates: with searches crossing a border while the page is
// open, the default per-second view shows a rate above zero on that
// border and on its legend, not the 0.0 a page of one snapshot showed.
func TestChromiumRates(t *testing.T) {
	r := busyRouter(t)
	b := newBrowser(t, r)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		k := shard.Key{Name: "drivers"}
		deadline := time.Now().Add(30 * time.Second)
		for i := 0; i < 200_000 && time.Now().Before(deadline); i++ {
			select {
			case <-stop:
				return
			default:
			}
			r.Search(k, geo.NewSearch(4.8, 52.25, geo.Shape{Radius: 2, Unit: 1000}), 10)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	dom := b.dom("/map")
	close(stop)
	<-done
	v, err := strconv.ParseFloat(attrs(dom, "path", "data-border", "data-value")["cell-0-0|cell-1-0"], 64)
	if err != nil || !(v > 0) {
		t.Errorf("busy border drawn with rate %v (%v), want above 0", v, err)
	}
	if !strings.Contains(dom, "searches that asked both shards/s") {
		t.Error("the border legend is not in searches per second")
	}
}
