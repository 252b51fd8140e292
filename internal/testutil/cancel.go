package testutil

import (
	"context"
	"errors"
	"testing"
	"time"
)

// CancelWhileWaiting runs read, cancels its context after the given delay and
// checks that read returns context.Canceled within 30 s; what names the
// reader in the failure.
func CancelWhileWaiting(t *testing.T, what string, after time.Duration, read func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- read(ctx) }()
	time.Sleep(after)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s went on after the context was cancelled", what)
	}
}
