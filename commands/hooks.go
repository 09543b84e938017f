package commands

import "sync/atomic"

// hooks are what the server plugs into the engine through its Config:
// the parts of a command's work that belong to the process, not to the
// keyspace.
type hooks struct {
	observe    atomic.Pointer[CommandObserver]
	shutdown   atomic.Pointer[ShutdownFunc]
	rewrite    atomic.Pointer[func() error]
	configFile atomic.Pointer[string]
}

// OnRewrite sets what CONFIG REWRITE calls to write the config file.
// Without it CONFIG REWRITE answers that there is no config file.
func (c *Config) OnRewrite(f func() error) { c.hooks.rewrite.Store(&f) }

// SetConfigFile records the config file's path for INFO's config_file.
func (c *Config) SetConfigFile(path string) { c.hooks.configFile.Store(&path) }

func (c *Config) configFile() string {
	if p := c.hooks.configFile.Load(); p != nil {
		return *p
	}
	return ""
}
