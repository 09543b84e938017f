package server

import (
	"reflect"
	"strings"
	"testing"
)

func TestSaveDirective(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []SavePoint
		err  string
	}{
		{"none", nil, nil, ""},
		{"pairs", []string{"--save", "3600", "1", "300", "100"}, []SavePoint{{3600, 1}, {300, 100}}, ""},
		{"one word", []string{"--save", "60 10000"}, []SavePoint{{60, 10000}}, ""},
		{"lines add up", []string{"--save", "900", "1", "--save", "300", "10"}, []SavePoint{{900, 1}, {300, 10}}, ""},
		{"empty clears", []string{"--save", "900", "1", "--save", ""}, nil, ""},
		{"odd", []string{"--save", "900"}, nil, "pairs"},
		{"zero seconds", []string{"--save", "0", "1"}, nil, "seconds >= 1"},
		{"not a number", []string{"--save", "x", "1"}, nil, "seconds >= 1"},
		{"dbfilename path", []string{"--dbfilename", "a/b"}, nil, "can't be a path"},
		{"corrupt mode", []string{"--snapshot-corrupt", "maybe"}, nil, "refuse or ignore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseArgs(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(o.Snapshot.Save, tc.want) {
				t.Fatalf("save points %v, want %v", o.Snapshot.Save, tc.want)
			}
			if got := lookupDirective("save").get(&o); got != formatSave(tc.want) {
				t.Fatalf("save reads back as %q", got)
			}
		})
	}
}
