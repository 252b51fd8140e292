package rows

import (
	"strings"
	"testing"

	"tracestreamer/schema"
)

// TestRowWidth: a row with a missing or extra value, of either kind, panics
// with the table's name instead of shifting later values into other columns.
func TestRowWidth(t *testing.T) {
	stat := schema.New().Stat // event_name, stat_type TEXT, count INT, serverity, source TEXT
	tests := []struct {
		name string
		row  func(a *Appender)
		want string // "" for no panic
	}{
		{"complete", func(a *Appender) { a.Row([]int64{3}, "e", "received", "info", "trace") }, ""},
		{"built value by value", func(a *Appender) {
			a.Text(S("e"))
			a.Text(Text{})
			a.Int(IOpt(0, false))
			a.Text(S("info"))
			a.Text(SOpt("", false))
			a.End()
		}, ""},
		{"missing INT", func(a *Appender) { a.Row(nil, "e", "received", "info", "trace") },
			"rows: row 0 of table stat has 0 INT and 4 TEXT values, want 1 and 4"},
		{"extra TEXT", func(a *Appender) { a.Row([]int64{3}, "e", "received", "info", "trace", "x") },
			"rows: row 0 of table stat has 1 INT and 5 TEXT values, want 1 and 4"},
		{"second row short", func(a *Appender) {
			a.Row([]int64{3}, "e", "received", "info", "trace")
			a.Row([]int64{3}, "e", "received", "info")
		}, "rows: row 1 of table stat has 1 INT and 3 TEXT values, want 1 and 4"},
		{"rowid on some rows only", func(a *Appender) {
			a.RowID(5)
			a.Row([]int64{3}, "e", "received", "info", "trace")
			a.Row([]int64{3}, "e", "received", "info", "trace")
		}, "rows: row 1 of table stat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			func() {
				defer func() {
					if r := recover(); r != nil {
						got = r.(string)
					}
				}()
				tt.row(NewAppender(NewMemory(), stat))
			}()
			if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
				t.Errorf("panic %q, want %q", got, tt.want)
			}
		})
	}
}
