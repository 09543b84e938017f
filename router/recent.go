package router

// recent keeps what is put in it from one to two askWindow: cur takes new
// entries and becomes prev when its window ends. The maps are cleared and
// reused: a cold load fills one with every member asked for, and growing
// a new one each window cost it again. Its owner holds a lock around it.
type recent[K comparable, V any] struct {
	cur, prev map[K]V
	since     int64 // when cur began
}

// rotate starts a new window when cur's has ended, and reports whether
// it did.
func (m *recent[K, V]) rotate(t int64) bool {
	switch {
	case t-m.since < int64(askWindow):
		return false
	case t-m.since < 2*int64(askWindow):
		m.prev, m.cur = m.cur, m.prev
	default:
		clear(m.prev)
	}
	clear(m.cur)
	m.since = t
	return true
}

func (m *recent[K, V]) put(k K, v V) {
	if m.cur == nil {
		m.cur = make(map[K]V)
	}
	m.cur[k] = v
}

func (m *recent[K, V]) get(k K) (V, bool) {
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.prev[k]
	return v, ok
}

func (m *recent[K, V]) empty() bool { return len(m.cur) == 0 && len(m.prev) == 0 }
