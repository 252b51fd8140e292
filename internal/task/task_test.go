package task

import "testing"

func TestTask(t *testing.T) {
	tests := []struct {
		name  string
		f     func(ran *bool)
		panic any
	}{
		{"returns", func(ran *bool) { *ran = true }, nil},
		{"panics", func(ran *bool) { *ran = true; panic("broken graph") }, "broken graph"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			task := Go(func() { tc.f(&ran) })
			func() {
				defer func() {
					if p := recover(); p != tc.panic {
						t.Errorf("Wait raised %v, want %v", p, tc.panic)
					}
				}()
				task.Wait()
			}()
			if !ran {
				t.Error("Wait returned before the function ran")
			}
			task.Wait() // raised already: returns
			task.Join()
		})
	}
}

// TestJoin: Join waits for the goroutine without raising its panic.
func TestJoin(t *testing.T) {
	release := make(chan struct{})
	finished := false
	task := Go(func() {
		<-release
		finished = true
		panic("late")
	})
	close(release)
	task.Join()
	if !finished {
		t.Error("Join returned before the function ended")
	}
}
