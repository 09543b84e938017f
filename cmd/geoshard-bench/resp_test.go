package main

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestReadReply(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		capture bool
		want    reply
		wantErr bool
	}{
		{"simple", "+OK\r\n", true, reply{kind: '+', str: "OK"}, false},
		{"simple not captured", "+OK\r\n", false, reply{kind: '+'}, false},
		{"error always kept", "-ERR wrong\r\n", false, reply{kind: '-', str: "ERR wrong"}, false},
		{"integer", ":1000000\r\n", false, reply{kind: ':', n: 1000000}, false},
		{"negative integer", ":-2\r\n", false, reply{kind: ':', n: -2}, false},
		{"bulk captured", "$5\r\nhello\r\n", true, reply{kind: '$', n: 5, str: "hello"}, false},
		{"bulk skipped", "$5\r\nhello\r\n", false, reply{kind: '$', n: 5}, false},
		{"null bulk", "$-1\r\n", true, reply{kind: '$', n: -1}, false},
		{"empty array", "*0\r\n", false, reply{kind: '*', n: 0}, false},
		{"geosearch withdist", "*2\r\n*2\r\n$8\r\ndriver:1\r\n$6\r\n0.1234\r\n*2\r\n$8\r\ndriver:2\r\n$6\r\n0.5000\r\n", false, reply{kind: '*', n: 2}, false},
		{"resp3 map", "%1\r\n+a\r\n:1\r\n", false, reply{kind: '%', n: 1}, false},
		{"resp3 null", "_\r\n", false, reply{kind: '_', n: -1}, false},
		{"truncated bulk", "$5\r\nhel", false, reply{}, true},
		{"truncated array", "*2\r\n:1\r\n", false, reply{}, true},
		{"no CR", "+OK\n", false, reply{}, true},
		{"bad integer", ":12a\r\n", false, reply{}, true},
		{"unknown type", "?x\r\n", false, reply{}, true},
		{"too deep", strings.Repeat("*1\r\n", 40) + ":1\r\n", false, reply{}, true},
		{"attribute", "|1\r\n+ttl\r\n:3600\r\n*2\r\n:1\r\n:2\r\n", false, reply{kind: '*', n: 2}, false},
		{"blob error", "!10\r\nSYNTAX bad\r\n", false, reply{kind: '!', n: 10, str: "SYNTAX bad"}, false},
		{"bulk with CRLF inside", "$4\r\na\r\nb\r\n", true, reply{kind: '$', n: 4, str: "a\r\nb"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := readReply(bufio.NewReader(strings.NewReader(tc.in)), nil, tc.capture)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestAppendCommands(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"command", appendCommand(nil, "ZCARD", "drivers"), "*2\r\n$5\r\nZCARD\r\n$7\r\ndrivers\r\n"},
		{"member", appendBulkMember(nil, 123456), "$13\r\ndriver:123456\r\n"},
		{"coord", appendBulkCoord(nil, 4.9041), "$8\r\n4.904100\r\n"},
		{"negative coord", appendBulkCoord(nil, -0.5), "$9\r\n-0.500000\r\n"},
		{"float", appendBulkFloat(nil, 2.5), "$3\r\n2.5\r\n"},
		{"int", appendBulkInt(nil, 10), "$2\r\n10\r\n"},
	}
	for _, tc := range tests {
		if string(tc.got) != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// BenchmarkReadReply reads the replies of the tool's three phases (GEOADD,
// nearest-10 WITHDIST, a wide search of 500 members) through one reused
// buffer, as the load loop does.
func BenchmarkReadReply(b *testing.B) {
	var knn, wide []byte
	knn = append(knn, "*10\r\n"...)
	for i := range 10 {
		knn = append(knn, "*2\r\n"...)
		knn = appendBulkMember(knn, 100000+i)
		knn = appendBulk(knn, "0.1234")
	}
	wide = append(wide, "*500\r\n"...)
	for i := range 500 {
		wide = appendBulkMember(wide, 100000+i)
	}
	for _, bc := range []struct {
		name  string
		reply []byte
	}{{"geoadd", []byte(":1\r\n")}, {"knn", knn}, {"wide", wide}} {
		b.Run(bc.name, func(b *testing.B) {
			stream := bytes.Repeat(bc.reply, 1000)
			rd := bytes.NewReader(stream)
			br := bufio.NewReaderSize(rd, 64<<10)
			var buf []byte
			b.SetBytes(int64(len(bc.reply)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%1000 == 0 {
					rd.Reset(stream)
					br.Reset(rd)
				}
				rep, nbuf, err := readReply(br, buf, false)
				buf = nbuf
				if err != nil || rep.n < 0 {
					b.Fatal(rep, err)
				}
			}
		})
	}
}
