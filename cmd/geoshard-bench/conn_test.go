package main

import "testing"

func TestParseInfo(t *testing.T) {
	redisCPU := "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:0.000000\r\n"
	tests := []struct {
		name    string
		text    string
		wantCPU float64
		wantOK  bool
	}{
		{"redis 7 INFO cpu", redisCPU, 3.75, true},
		{"LF line ends", "used_cpu_sys:1\nused_cpu_user:2\n", 3, true},
		{"user missing", "# CPU\r\nused_cpu_sys:1.0\r\n", 0, false},
		{"garbage value", "used_cpu_sys:x\r\nused_cpu_user:1\r\n", 0, false},
		{"empty", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := parseInfo(tc.text)
			sys, okSys := parseFloatField(f, "used_cpu_sys")
			user, okUser := parseFloatField(f, "used_cpu_user")
			if ok := okSys && okUser; ok != tc.wantOK || ok && sys+user != tc.wantCPU {
				t.Errorf("got %v+%v (ok %v), want %v (ok %v)", sys, user, ok, tc.wantCPU, tc.wantOK)
			}
		})
	}
	mem := parseInfo("# Memory\r\nused_memory:111016888\r\nused_memory_human:105.87M\r\n")
	if v, ok := parseIntField(mem, "used_memory"); !ok || v != 111016888 {
		t.Errorf("used_memory = %d, %v", v, ok)
	}
	if _, ok := parseIntField(mem, "used_memory_human"); ok {
		t.Error("used_memory_human parsed as an integer")
	}
}
