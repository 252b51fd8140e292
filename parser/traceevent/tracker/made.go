package tracker

// made holds the rows a tracker made since the importer last took them.
// Row ids run on across takes: row base+i is rows[i].
type made[T any] struct {
	rows []T
	base int
}

// next returns the id the next row gets.
func (m *made[T]) next() int { return m.base + len(m.rows) }

// add appends a row.
func (m *made[T]) add(r T) { m.rows = append(m.rows, r) }

// pending reports whether rows were made since the last take.
func (m *made[T]) pending() bool { return len(m.rows) > 0 }

// take hands over the rows made since the last take and forgets them. The
// slice is reused: it is valid until the tracker's next event.
func (m *made[T]) take() []T {
	r := m.rows
	m.base += len(r)
	m.rows = m.rows[:0]
	return r
}
