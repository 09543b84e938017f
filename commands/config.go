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
	// Protected settings (dir, dbfilename: where files are written) change
	// live only when enable-protected-configs allows it, as in Redis 7.0.
	Protected bool
	// Prepare, if set, does the slow part of a change (reading and
	// checking a file) before CONFIG SET takes the keyspace, so that no
	// command waits on it; the function it returns applies the result
	// under the lock, in place of Set.
	Prepare func(value string) (apply func() error, err error)
}

// change sets a value, preparing it first if the setting has that step.
func (s *Setting) change(value string) error {
	if s.Prepare == nil {
		return s.Set(value)
	}
	apply, err := s.Prepare(value)
	if err != nil {
		return err
	}
	return apply()
}

// Values of enable-protected-configs and enable-debug-command, as Redis's.
const (
	AllowNo    = "no"
	AllowYes   = "yes"
	AllowLocal = "local" // from 127.0.0.1 and ::1 only
)

// Config holds the server's directives by name.
type Config struct {
	mu       sync.RWMutex
	settings map[string]*Setting
	pass     string
	hooks    hooks       // hooks.go
	memory   memoryLimit // oom.go

	// enable-protected-configs and enable-debug-command: fixed at start.
	protectedConfigs, debugCommand string
}

// SetProtectedActions sets enable-protected-configs and
// enable-debug-command (AllowNo, AllowYes or AllowLocal); both are
// AllowNo until set, Redis 7.0's defaults.
func (c *Config) SetProtectedActions(configs, debug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.protectedConfigs, c.debugCommand = configs, debug
}

// allowed is Redis's allowProtectedAction: yes, or local and the client
// is on the loopback interface.
func allowed(mode string, cl *Client) bool {
	return mode == AllowYes || (mode == AllowLocal && cl.isLocal())
}

func (c *Config) protectedConfigsAllowed(cl *Client) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return allowed(c.protectedConfigs, cl)
}

func (c *Config) debugAllowed(cl *Client) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return allowed(c.debugCommand, cl)
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
	if s.Set == nil && s.Prepare == nil {
		return fmt.Errorf("CONFIG SET failed (possibly related to argument '%s') - can't set immutable config", s.Name)
	}
	if err := s.change(value); err != nil {
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
