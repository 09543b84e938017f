package commands

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Setting is one directive of the server's configuration: what CONFIG GET
// reads and, when Set is not nil, what CONFIG SET may change live.
type Setting struct {
	Name string
	Get  func() string
	Set  func(value string) error // nil: only at start-up
}

// Config holds the server's directives by name.
type Config struct {
	mu       sync.RWMutex
	settings map[string]*Setting
	pass     string
	hooks    hooks       // hooks.go
	memory   memoryLimit // oom.go
}

// NewConfig returns an empty configuration.
func NewConfig() *Config { return &Config{settings: make(map[string]*Setting)} }

// Add registers a directive.
func (c *Config) Add(s *Setting) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settings[s.Name] = s
}

// Lookup returns a directive by name, in any case.
func (c *Config) Lookup(name string) (*Setting, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.settings[strings.ToLower(name)]
	return s, ok
}

// Match returns the directives whose name matches a glob pattern, sorted.
func (c *Config) Match(pattern string) []*Setting {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Setting
	for name, s := range c.settings {
		if globMatch(strings.ToLower(pattern), name) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SetValue changes a directive, as CONFIG SET does.
func (c *Config) SetValue(name, value string) error {
	s, ok := c.Lookup(name)
	if !ok {
		return fmt.Errorf("Unknown option or number of arguments for CONFIG SET - '%s'", name)
	}
	if s.Set == nil {
		return fmt.Errorf("CONFIG SET failed (possibly related to argument '%s') - can't set immutable config", s.Name)
	}
	if err := s.Set(value); err != nil {
		return fmt.Errorf("CONFIG SET failed (possibly related to argument '%s') - %v", s.Name, err)
	}
	return nil
}

// RequirePass returns the password clients must give, "" for none.
func (c *Config) RequirePass() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.pass
}

// SetRequirePass changes the password.
func (c *Config) SetRequirePass(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pass = p
}
