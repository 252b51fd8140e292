// Package task runs a step of work on another goroutine and hands its panic
// back to the goroutine that waits for it, where the caller turns panics
// into errors (a decoder recovers what its steps raise).
//
// It must not swallow a panic: the first Wait raises it again, and only Join,
// meant for deferred calls on a path that is already failing, waits without
// raising it.
package task

// Task is a function running on its own goroutine.
type Task struct {
	done   chan struct{}
	panic  any
	raised bool
}

// Go runs f on a new goroutine.
func Go(f func()) *Task {
	t := &Task{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		defer func() { t.panic = recover() }()
		f()
	}()
	return t
}

// Wait waits for f to return and raises its panic, if it had one, on the
// calling goroutine (the first time only: later calls just return).
func (t *Task) Wait() {
	<-t.done
	if t.panic != nil && !t.raised {
		t.raised = true
		panic(t.panic)
	}
}

// Join waits for f to return without raising its panic: deferred on the
// path that starts the task, it keeps the goroutine from outliving the
// caller's resources (a file it writes) when the caller fails first.
func (t *Task) Join() { <-t.done }
