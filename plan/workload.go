// Package plan judges and proposes region maps offline: it replays a
// recorded (or synthetic) workload of pings and searches against candidate
// maps through a real router.Router, reports what each border costs, and
// proposes maps whose borders run through low-density ground.
package plan

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"geoshard/geo"
)

// Ping is one position report: GEOADD <key> lon lat id at time T.
type Ping struct {
	T        float64 // seconds; any epoch, only differences matter
	ID       string
	Lon, Lat float64
}

// Search is one rider's search: GEOSEARCH <key> FROMLONLAT lon lat
// BYRADIUS radius m ASC [COUNT n] at time T.
type Search struct {
	T        float64
	Lon, Lat float64
	RadiusM  float64
	// Count is the search's COUNT: 0 means DefaultCount, as a pickup
	// search asks for the nearest ten; negative means no COUNT (every
	// driver in the radius).
	Count int
}

// DefaultCount is the COUNT of a search whose file has no count column.
const DefaultCount = 10

// Limit returns the COUNT the search sends, 0 for none.
func (s *Search) Limit() int {
	switch {
	case s.Count == 0:
		return DefaultCount
	case s.Count < 0:
		return 0
	}
	return s.Count
}

// Workload is what the planner replays.
type Workload struct {
	Pings    []Ping
	Searches []Search
}

// The CSV headers, exactly as the files must start.
const (
	PingHeader   = "time,id,lon,lat"
	SearchHeader = "time,lon,lat,radius_m"
	// SearchCountHeader adds each search's COUNT; 0 or empty: no COUNT.
	SearchCountHeader = "time,lon,lat,radius_m,count"
)

// Span returns the seconds between the first and the last event, at
// least one second so that rates stay finite.
func (w *Workload) Span() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range w.Pings {
		lo, hi = math.Min(lo, p.T), math.Max(hi, p.T)
	}
	for _, s := range w.Searches {
		lo, hi = math.Min(lo, s.T), math.Max(hi, s.T)
	}
	if !(hi-lo >= 1) {
		return 1
	}
	return hi - lo
}

// ReadPings parses a pings CSV: the header line "time,id,lon,lat", then
// one ping per line. Errors name the line.
func ReadPings(r io.Reader) ([]Ping, error) {
	var out []Ping
	err := readCSV(r, []string{PingHeader}, func(line int, f []string) error {
		t, err := parseTime(f[0])
		if err != nil {
			return err
		}
		if f[1] == "" {
			return errors.New("empty id")
		}
		lon, lat, err := parsePos(f[2], f[3])
		if err != nil {
			return err
		}
		out = append(out, Ping{T: t, ID: f[1], Lon: lon, Lat: lat})
		return nil
	})
	return out, err
}

// ReadSearches parses a searches CSV: the header line
// "time,lon,lat,radius_m" (every search with COUNT 10) or
// "time,lon,lat,radius_m,count", then one search per line.
func ReadSearches(r io.Reader) ([]Search, error) {
	var out []Search
	err := readCSV(r, []string{SearchHeader, SearchCountHeader}, func(line int, f []string) error {
		t, err := parseTime(f[0])
		if err != nil {
			return err
		}
		lon, lat, err := parsePos(f[1], f[2])
		if err != nil {
			return err
		}
		rad, err := parseNum(f[3], "radius_m")
		if err != nil {
			return err
		}
		if rad < 0 {
			return fmt.Errorf("radius_m %v is negative", rad)
		}
		n := 0
		if len(f) == 5 {
			if n, err = parseCount(f[4]); err != nil {
				return err
			}
		}
		out = append(out, Search{T: t, Lon: lon, Lat: lat, RadiusM: rad, Count: n})
		return nil
	})
	return out, err
}

// ReadWorkload reads a pings file and a searches file (either path may
// be empty) and orders each by time, stably.
func ReadWorkload(pingsPath, searchesPath string) (*Workload, error) {
	w := &Workload{}
	if pingsPath != "" {
		f, err := os.Open(pingsPath)
		if err != nil {
			return nil, err
		}
		w.Pings, err = ReadPings(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pingsPath, err)
		}
	}
	if searchesPath != "" {
		f, err := os.Open(searchesPath)
		if err != nil {
			return nil, err
		}
		w.Searches, err = ReadSearches(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", searchesPath, err)
		}
	}
	sortWorkload(w)
	return w, nil
}

// readCSV reads a file that starts with one of headers; each row must
// have as many fields as the header it starts with.
func readCSV(r io.Reader, headers []string, row func(int, []string) error) error {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1 // counted below, after the header check
	cr.ReuseRecord = true
	first := true
	header, fields := "", 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if first {
				return fmt.Errorf("empty file, want the header %q", headers[0])
			}
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if first {
			first = false
			got := strings.TrimPrefix(strings.Join(rec, ","), "\ufeff")
			if !slices.Contains(headers, got) {
				return fmt.Errorf("line 1: header %q, want %q", got, strings.Join(headers, `" or "`))
			}
			header, fields = got, len(rec)
			continue
		}
		if len(rec) != fields {
			return fmt.Errorf("line %d: %d fields, want %d (%s)", line, len(rec), fields, header)
		}
		if err := row(line, rec); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

func parseNum(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is not a finite number", what, s)
	}
	return v, nil
}

// parseTime reads seconds from any epoch, or an RFC 3339 timestamp
// (2026-12-01T15:04:05.5Z), which it turns into Unix seconds.
func parseTime(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := parseNum(s, "time"); err == nil {
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("time %q is neither seconds nor an RFC 3339 timestamp (2006-01-02T15:04:05Z)", s)
	}
	return float64(t.UnixNano()) / 1e9, nil
}

// parseCount reads a COUNT column: a positive whole number, or 0 or
// empty for a search without COUNT.
func parseCount(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("count %q is not a whole number >= 0", s)
	}
	return n, nil
}

func parsePos(slon, slat string) (lon, lat float64, err error) {
	if lon, err = parseNum(slon, "lon"); err != nil {
		return
	}
	if lat, err = parseNum(slat, "lat"); err != nil {
		return
	}
	if !geo.Valid(lon, lat) {
		err = fmt.Errorf("position (%v, %v) is outside Redis's GEO range", lon, lat)
	}
	return
}

// WritePings writes pings in the CSV format ReadPings reads.
func WritePings(w io.Writer, pings []Ping) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(PingHeader + "\n")
	for _, p := range pings {
		fmt.Fprintf(bw, "%s,%s,%s,%s\n", fnum(p.T), csvField(p.ID), fnum(p.Lon), fnum(p.Lat))
	}
	return bw.Flush()
}

// WriteSearches writes searches in the CSV format ReadSearches reads.
func WriteSearches(w io.Writer, searches []Search) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(SearchCountHeader + "\n")
	for _, s := range searches {
		fmt.Fprintf(bw, "%s,%s,%s,%s,%d\n", fnum(s.T), fnum(s.Lon), fnum(s.Lat), fnum(s.RadiusM), s.Limit())
	}
	return bw.Flush()
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// csvField quotes a field the way encoding/csv reads it back.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
